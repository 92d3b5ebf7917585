/**
 * `workflow_run` / `workflow_job` → the tracking comment of the mission the run belongs to,
 * re-rendered FROM THE STATE, never from the event: events arrive late, twice or out of order,
 * and a render of the stored mission is right whichever event asked for it.
 */
import type { Context } from "probot";
import { runIdOf } from "../github-driver/mission-id.ts";
import { publishTracking } from "../github-driver/publish.ts";
import type { MissionStore } from "../mission/store.ts";
import type { AppDeps } from "./deps.ts";
import { installationDeps } from "./installation.ts";
import type { Throttle } from "./throttle.ts";

const MISSION_ID = /^m-[a-z0-9]{4,32}$/;

/** The run an event is about, as far as finding its mission goes. */
export interface RunRef {
  readonly id: number;
  /** The run's title (`run-name`), when the workflow puts the mission id in it. */
  readonly title: string | null;
  readonly headBranch: string | null;
}

/**
 * The mission of a run: named by the run's title or its head branch (`naruto/<mission>`) when
 * they carry it, else the stored mission with an attempt whose runner is this run. Dispatches on
 * the default branch carry the mission only in their inputs, which run events do not include.
 */
export async function missionOfRun(store: MissionStore, run: RunRef): Promise<string | null> {
  const titled = (run.title ?? "").split(/\s+/).find((word) => MISSION_ID.test(word));
  if (titled !== undefined) return titled;
  const branch = /^naruto\/(m-[a-z0-9]{4,32})$/.exec(run.headBranch ?? "")?.[1];
  if (branch !== undefined) return branch;
  const ids = await store.list();
  for (let i = 0; i < ids.length; i += 8) {
    const loaded = await Promise.all(ids.slice(i, i + 8).map((id) => store.load(id).catch(() => null)));
    for (const stored of loaded) {
      const owns = stored?.mission.items.some((item) => item.attempts.some((a) => runIdOf(a.runner) === run.id));
      if (stored && owns) return stored.mission.id;
    }
  }
  return null;
}

type RunContext = Context<"workflow_run"> | Context<"workflow_job">;

export async function onRunEvent(deps: AppDeps, throttle: Throttle, context: RunContext, run: RunRef): Promise<void> {
  const { repository } = context.payload;
  const driver = installationDeps(deps, context, { owner: repository.owner.login, repo: repository.name, defaultBranch: repository.default_branch });
  const id = await missionOfRun(driver.store, run);
  if (id === null) return;
  const render = async () => {
    const stored = await driver.store.load(id);
    if (stored === null) return;
    const { mission } = stored;
    const pullRequest = await driver.github.findPullRequest({ head: mission.queue.branch, base: mission.base.ref });
    await publishTracking(driver, mission, pullRequest);
  };
  const how = await throttle.request(`${repository.full_name.toLowerCase()}:${id}`, render);
  context.log.debug(`tracking comment of ${id} (run ${run.id}): ${how}`);
}

/** Only runs of naruto's workflow file count; its other runs and other workflows are not ours. */
export function isNarutoWorkflow(deps: AppDeps, path: string | null | undefined): boolean {
  return path !== null && path !== undefined && (path === `.github/workflows/${deps.workflow}` || path.startsWith(`.github/workflows/${deps.workflow}@`));
}
