/**
 * `workflow_run` / `workflow_job` → the tracking comment of the mission the run belongs to,
 * re-rendered FROM THE STATE, never from the event: events arrive late, twice or out of order,
 * and a render of the stored mission is right whichever event asked for it.
 */
import type { Context } from "probot";
import { integrateRunInputs } from "../github-driver/index.ts";
import { publishTracking } from "../github-driver/index.ts";
import { createLru } from "../github/index.ts";
import { GITHUB_STATE_REF_PREFIX } from "../store/index.ts";
import type { AppDeps } from "./deps.ts";
import { installationDeps } from "./installation.ts";
import type { Throttle } from "./throttle.ts";

const MISSION_ID = /^m-[a-z0-9]{4,32}$/;

/** The run or job an event is about, as far as finding its mission goes. */
export interface RunRef {
  readonly id: number;
  /**
   * What the workflow names the run or job by: the run's title (`run-name`, "naruto work
   * m-1a2b3c") for `workflow_run`, the job's name ("work m-1a2b3c alpha#1") for `workflow_job`.
   */
  readonly title: string | null;
  readonly headBranch: string | null;
}

/**
 * The mission of a run, from the event alone: named by the run's title or the job's name, or by
 * its head branch (`naruto/<mission>`). Never by searching the stored missions: that would cost
 * more the more missions a repository has had, on every one of the dozens of events a run
 * sends. A run of an older template without the names is left to the next named event and the
 * sweep.
 */
export function missionOfRun(run: RunRef): string | null {
  const titled = (run.title ?? "").split(/\s+/).find((word) => MISSION_ID.test(word));
  if (titled !== undefined) return titled;
  return /^naruto\/(m-[a-z0-9]{4,32})$/.exec(run.headBranch ?? "")?.[1] ?? null;
}

type RunContext = Context<"workflow_run"> | Context<"workflow_job">;

/**
 * The state version of each mission this App last rendered (the newest `limit` missions): a run
 * sends a dozen events, and most find the state as the last render left it. Lost on a restart,
 * which costs one render more.
 */
export interface RenderedVersions {
  get(key: string): string | undefined;
  set(key: string, version: string): void;
}

export function createRenderedVersions(limit = 1_000): RenderedVersions {
  return createLru(limit);
}

/**
 * Renders the mission's tracking comment from its state, at most once per interval (the
 * throttle), and only when the state moved since this App last rendered it: then the event
 * costs one read (the state ref). A comment edited by hand is repaired by the next render of a
 * new state, not by every event.
 */
export async function onRunEvent(deps: AppDeps, memory: { throttle: Throttle; rendered: RenderedVersions }, context: RunContext, run: RunRef): Promise<void> {
  const { repository } = context.payload;
  const id = missionOfRun(run);
  if (id === null) return;
  const driver = installationDeps(deps, context, { owner: repository.owner.login, repo: repository.name, defaultBranch: repository.default_branch });
  const key = `${repository.full_name.toLowerCase()}:${id}`;
  const render = async () => {
    const version = await driver.github.getRef(GITHUB_STATE_REF_PREFIX + id);
    if (version === null || version === memory.rendered.get(key)) return;
    const stored = await driver.store.load(id);
    if (stored === null) return;
    const { mission } = stored;
    // GitHub refuses a pull request without commits: none can exist while the queue is at its base.
    const pullRequest = mission.queue.head === mission.base.commit ? null : await driver.github.findPullRequest({ head: mission.queue.branch, base: mission.base.ref });
    await publishTracking(driver, mission, pullRequest);
    memory.rendered.set(key, stored.version);
  };
  const how = await memory.throttle.request(key, render);
  context.log.debug(`tracking comment of ${id} (run ${run.id}): ${how}`);
}

/** A work leg that ended, as a `workflow_job` `completed` event shows it. */
export interface EndedJob {
  readonly runId: number;
  /** The job's name: `work m-1a2b3c alpha#1` for a leg of a work run. */
  readonly name: string;
  readonly conclusion: string | null;
}

/**
 * A work leg ended (with its artifact uploaded, as its last step): an integrate run takes the
 * legs of its work run that ended so far (templates/naruto.yml, phase `integrate`), so that a
 * fast item is integrated, and what waits for it starts, without waiting for the slowest leg of
 * its matrix (docs/architecture.md, no barriers). One dispatch, no read; legs that end within the
 * throttle's interval share one run. Whatever this misses (a lost event, a restart) the work
 * run's own queue and publish jobs integrate once all its legs ended.
 */
export async function onWorkLegEnded(deps: AppDeps, memory: { throttle: Throttle }, context: Context<"workflow_job">, job: EndedJob): Promise<void> {
  // A cancelled or skipped leg left no artifact; an integrate-only run's work job is skipped.
  if (job.conclusion !== "success" && job.conclusion !== "failure") return;
  const [phase, id] = job.name.split(/\s+/);
  if (phase !== "work" || id === undefined || !MISSION_ID.test(id)) return;
  const { repository } = context.payload;
  const driver = installationDeps(deps, context, { owner: repository.owner.login, repo: repository.name, defaultBranch: repository.default_branch });
  const inputs = integrateRunInputs(id, job.runId);
  const dispatch = async () => {
    try {
      await driver.github.dispatchWorkflow({ workflow: driver.workflow, ref: driver.ref, inputs });
      context.log.info(`integrate run dispatched for ${id}: the ended legs of run ${job.runId}`);
    } catch (error) {
      // An older workflow file without the integrate phase refuses it: its work runs integrate
      // their legs themselves, once all ended.
      context.log.warn(`no integrate run for ${id} (run ${job.runId}): ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  await memory.throttle.request(`integrate:${repository.full_name.toLowerCase()}:${id}:${job.runId}`, dispatch);
}

/** Only runs of naruto's workflow file count; its other runs and other workflows are not ours. */
export function isNarutoWorkflow(deps: AppDeps, path: string | null | undefined): boolean {
  return path !== null && path !== undefined && (path === `.github/workflows/${deps.workflow}` || path.startsWith(`.github/workflows/${deps.workflow}@`));
}
