/**
 * `workflow_run` / `workflow_job` → the tracking comment of the mission the run belongs to,
 * re-rendered FROM THE STATE, never from the event: events arrive late, twice or out of order,
 * and a render of the stored mission is right whichever event asked for it.
 */
import type { Context } from "probot";
import { jobEndedAt, jobStartedAt } from "../github-driver/index.ts";
import { integrateRunInputs } from "../github-driver/index.ts";
import type { MissionEvent } from "../mission/index.ts";
import { applyEvents } from "../mission/index.ts";
import { publishTracking } from "../github-driver/index.ts";
import { createLru } from "../github/index.ts";
import { GITHUB_STATE_REF_PREFIX } from "../store/index.ts";
import type { AppDeps } from "./deps.ts";
import { installationDeps } from "./installation.ts";
import type { FlightIo, IntegrateFlights } from "./integrate-flights.ts";
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
    const pullRequest =
      mission.queue.head === mission.base.commit ? null : await driver.github.findPullRequest({ head: mission.queue.branch, base: mission.base.ref });
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
 * its matrix (docs/architecture.md, no barriers). At most one integrate run per work run is in
 * flight (integrate-flights.ts): a leg that ends meanwhile waits for it to complete. Whatever this
 * misses (a lost event, a restart) the work run's own queue and publish jobs integrate once all
 * its legs ended.
 */
export async function onWorkLegEnded(deps: AppDeps, memory: { flights: IntegrateFlights }, context: Context<"workflow_job">, job: EndedJob): Promise<void> {
  // A cancelled or skipped leg left no artifact; an integrate-only run's work job is skipped.
  if (job.conclusion !== "success" && job.conclusion !== "failure") return;
  const [phase, id] = job.name.split(/\s+/);
  if (phase !== "work" || id === undefined || !MISSION_ID.test(id)) return;
  const { repository } = context.payload;
  await memory.flights.legEnded({ repo: repository.full_name, mission: id, workRunId: job.runId }, flightIo(deps, context));
}

/**
 * A run of naruto's workflow completed (`workflow_run` `completed`): the integrate run in flight
 * for a work run lets the next one go, if legs ended meanwhile; a work run's end ends its flight.
 */
export async function onRunCompleted(deps: AppDeps, memory: { flights: IntegrateFlights }, context: Context<"workflow_run">, run: RunRef): Promise<void> {
  await memory.flights.runCompleted({ repo: context.payload.repository.full_name, runId: run.id, title: run.title }, flightIo(deps, context));
}

/** The flights' GitHub: the installation that sent the event (built only when a dispatch or read needs it). */
function flightIo(deps: AppDeps, context: RunContext): FlightIo {
  const { repository } = context.payload;
  let driver: ReturnType<typeof installationDeps> | null = null;
  const github = () => {
    driver ??= installationDeps(deps, context, { owner: repository.owner.login, repo: repository.name, defaultBranch: repository.default_branch });
    return driver;
  };
  return {
    dispatch: async (scope) => {
      const d = github();
      return (await d.github.dispatchWorkflow({ workflow: d.workflow, ref: d.ref, inputs: integrateRunInputs(scope.mission, scope.workRunId) })).runId;
    },
    runStatus: async (runId) => (await github().github.getRun({ runId })).status,
    info: (message) => context.log.info(message),
    warn: (message) => context.log.warn(message),
  };
}

/** A work leg a runner took or that ended, as a `workflow_job` `in_progress` or `completed` event shows it. */
export interface StartedJob {
  /** `work m-1a2b3c alpha#1`. */
  readonly name: string;
  readonly status: string;
  readonly conclusion: string | null;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  /** The job's page: the attempt's runner from now on. */
  readonly url: string | null;
}

/**
 * The starts and ends of legs this App saw: those not yet saved, per repository and mission (one
 * save takes them all), and those it saved already (the newest, by leg and event), so that the
 * same event again (a redelivery, a leg's second `in_progress`) costs nothing. Lost on a restart:
 * the sweep reads the starts and ends from the jobs.
 */
export interface LegStarts {
  readonly pending: Map<string, Map<string, MissionEvent>>;
  readonly saved: { get(key: string): true | undefined; set(key: string, value: true): void };
}

export function createLegStarts(limit = 10_000): LegStarts {
  return { pending: new Map(), saved: createLru(limit) };
}

const LEG = /^work (m-[a-z0-9]{4,32}) ([a-z0-9][a-z0-9._-]{0,62})#([1-9][0-9]{0,3})$/;

/**
 * A work leg's job started, or ended: its attempt's clock starts when the job started, not at
 * the dispatch (the legs of a run wait for runners beyond the account's concurrent-job quota),
 * and stops when it ended (`agent_exited`): its result is recorded later by an integrate or
 * publish job, which waits for a runner like any job, and that wait is not the agent's time. An
 * ended job's start is saved with its end (its `in_progress` event may be lost). The events of
 * one mission that arrive within the throttle's interval are saved together (one state write for
 * a wave of legs); whatever is lost here (a restart) the sweep reads from the jobs before it
 * times anything out.
 */
export async function onWorkLegStarted(
  deps: AppDeps,
  memory: { throttle: Throttle; starts: LegStarts },
  context: Context<"workflow_job">,
  job: StartedJob,
): Promise<void> {
  const leg = LEG.exec(job.name);
  const started = jobStartedAt(job);
  if (leg === null || started === null) return;
  const [, id = "", item = "", n = "0"] = leg;
  const attempt = Number(n);
  const { repository } = context.payload;
  const key = `started:${repository.full_name.toLowerCase()}:${id}`;
  const ended = jobEndedAt(job);
  const events: [string, MissionEvent][] = [[`${key}:${item}#${n}`, { type: "attempt_started", at: started, item, attempt, runner: job.url }]];
  if (ended !== null) events.push([`${key}:${item}#${n}:exited`, { type: "agent_exited", at: ended, item, attempt }]);
  const fresh = events.filter(([legKey]) => memory.starts.saved.get(legKey) !== true);
  if (fresh.length === 0) return;
  const pending = memory.starts.pending.get(key) ?? new Map<string, MissionEvent>();
  memory.starts.pending.set(key, pending);
  for (const [legKey, event] of fresh) pending.set(legKey, event);
  const driver = installationDeps(deps, context, { owner: repository.owner.login, repo: repository.name, defaultBranch: repository.default_branch });
  const save = async () => {
    const taken = [...pending.entries()];
    pending.clear();
    if (taken.length === 0) return;
    const result = await applyEvents(
      driver.store,
      id,
      taken.map(([, event]) => event),
    );
    // Applied, or already there: either way this App need not save it again.
    result.outcomes.forEach((o, i) => {
      const leg = taken[i]?.[0];
      if (leg !== undefined && o.kind !== "illegal") memory.starts.saved.set(leg, true);
    });
    const applied = result.outcomes.filter((o) => o.kind === "applied").length;
    if (applied > 0) context.log.debug(`${id}: ${applied} attempt start(s) or end(s) saved`);
  };
  await memory.throttle.request(key, save);
}

/** Only runs of naruto's workflow file count; its other runs and other workflows are not ours. */
export function isNarutoWorkflow(deps: AppDeps, path: string | null | undefined): boolean {
  return path !== null && path !== undefined && (path === `.github/workflows/${deps.workflow}` || path.startsWith(`.github/workflows/${deps.workflow}@`));
}
