/**
 * `watch` (app-less mode; may dispatch, runs nothing of the repository): beside a work run's
 * matrix, reads the run's jobs every poll and, when legs ended since the last look while others
 * still work, dispatches an integrate run (phase `integrate`) that takes the legs of this run
 * ended so far. A fast item is then integrated, and what waits for it starts, without waiting
 * for the slowest leg of its matrix (docs/architecture.md, no barriers): what the App does from
 * `workflow_job` events (src/app/run-events.ts), done by a job of the run where there is no App.
 *
 * Only an acceleration: whatever it misses, or when it stops early (GitHub refuses the dispatch,
 * the jobs cannot be read), the work run's own queue and publish jobs integrate every leg once
 * all ended. Once no leg works any more it stops without a dispatch, for the same reason.
 *
 * Its reads count against the repository's `GITHUB_TOKEN` budget (1,000 requests an hour on
 * github.com): they are conditional (ETags, main.ts), but a run's job list changes with every step
 * of every leg, so a page (100 jobs) holding a leg that moved is a full answer.
 * The watch therefore reads less often the more pages its run's list has ({@link watchPollMs}):
 * at most {@link WATCH_BUDGET_PER_HOUR} page reads an hour at the default 15 s, whatever the legs
 * (`npm run bench -- api` measures what a run costs with its checks and dispatches).
 *
 * It keeps one integrate run of its run in flight: every run of a mission ends in a publish job
 * of the concurrency group `naruto-<mission>` (`queue: max`), which GitHub caps at 100 pending
 * jobs and cancels any beyond; an integrate run per leg of a 256-leg run, each waiting for a
 * runner behind the legs, would pile up there and the run's own publish, last in line, be
 * cancelled. One in flight loses nothing: an integrate run takes every leg ended by the time its
 * queue job reads, and a second one's queue job, built while the first publishes, would not be
 * taken anyway (the queue head moved under it).
 * And it holds a runner: when for {@link STARVED_MS} no leg of its run has a runner while some
 * wait for one, the watch is the job keeping them waiting (a quota of one, a small self-hosted
 * pool), and it ends to give its runner back.
 */
import { OutcomeUnknownError } from "../../github/index.ts";
import type { WorkflowJob } from "../../github/index.ts";
import { integrateRunInputs, workLegName } from "../../github-driver/index.ts";
import type { DispatchInput, ModeDeps } from "../deps.ts";
import { missionInput, ModeInputError } from "./shared.ts";

/** How the watch waits between its reads of the jobs. */
export interface WatchTiming {
  readonly pollMs: number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** Reads of the job list that failed in a row before the watch leaves the rest to the queue job. */
const MAX_FAILED_READS = 5;

/** The interval GitHub's runs are read at by default (DEFAULT_WATCH): the budget below is at it. */
export const WATCH_BASE_POLL_MS = 15_000;
/** Requests an hour the watch of one run may make at the base interval: under a third of `GITHUB_TOKEN`'s 1,000. */
export const WATCH_BUDGET_PER_HOUR = 300;
/** Jobs a page of the jobs list holds (`per_page=100`, GitHub's most). */
export const JOBS_PER_PAGE = 100;
/** Besides the legs, a work run lists its other jobs (plan, review, watch; queue and publish at the end). */
const OTHER_JOBS = 5;

/**
 * How long the watch waits between reads of a run of `legs` legs, from its interval `pollMs`: as
 * many pages as the list has, stretched so that at {@link WATCH_BASE_POLL_MS} the reads stay
 * within {@link WATCH_BUDGET_PER_HOUR} even when every read is a full answer. One page (up to 95
 * legs): `pollMs`; 256 legs (three pages): 2.4 × `pollMs`, 300 requests an hour at 15 s.
 */
export function watchPollMs(pollMs: number, legs: number): number {
  const pages = Math.ceil((legs + OTHER_JOBS) / JOBS_PER_PAGE);
  const perHourAtBase = pages * (3_600_000 / WATCH_BASE_POLL_MS);
  return Math.round(pollMs * Math.max(1, perHourAtBase / WATCH_BUDGET_PER_HOUR));
}

/** No leg of the run under way while some wait for a runner, this long: the watch gives its runner back. */
export const STARVED_MS = 2 * 60_000;

export interface WatchOutcome {
  /** Integrate runs dispatched. */
  readonly dispatched: number;
  readonly reason: string;
}

export async function watchMode(
  deps: Pick<ModeDeps, "github" | "workflow" | "ref" | "log">,
  input: { mission: string; runId: number | null; dispatch: DispatchInput },
  timing: WatchTiming,
): Promise<WatchOutcome> {
  const mission = missionInput(input.mission);
  if (input.runId === null) throw new ModeInputError("GITHUB_RUN_ID is not set: the watch job watches the legs of its own run");
  const stop = (dispatched: number, reason: string): WatchOutcome => {
    deps.log.info(`watch ${mission}: ${reason}`);
    return { dispatched, reason };
  };
  if (input.dispatch.phase !== "work") return stop(0, "not a work run: nothing to watch");
  // The names GitHub gives the legs, and what the log calls them.
  const legs = new Map(input.dispatch.items.map((i) => [workLegName(mission, i.item, i.attempt), `${i.item}#${i.attempt}`]));
  if (legs.size < 2) return stop(0, `${legs.size} leg: the run's queue job integrates it as soon as it ends`);

  const taken = new Set<string>();
  let dispatched = 0;
  let failedReads = 0;
  const pollMs = watchPollMs(timing.pollMs, legs.size);
  let starvedMs = 0;
  // The integrate run dispatched last, until GitHub shows it completed (null: none, or unknown).
  let integrating: number | null = null;
  for (;;) {
    let jobs: WorkflowJob[];
    try {
      jobs = await deps.github.listJobs({ runId: input.runId });
      failedReads = 0;
    } catch (error) {
      failedReads += 1;
      deps.log.warning(`watch ${mission}: reading the jobs of run ${input.runId} failed (${describe(error)})`);
      if (failedReads >= MAX_FAILED_READS)
        return stop(dispatched, `${failedReads} reads failed in a row: the run's queue job integrates the legs once all ended`);
      await timing.sleep(pollMs);
      continue;
    }
    const ours = jobs.filter((j) => legs.has(j.name));
    const ended = ours.filter((j) => j.status === "completed");
    // The queue job needs every leg: once it is listed, no leg works any more.
    const queueListed = jobs.some((j) => j.name === `queue ${mission}`);
    if (queueListed || new Set(ended.map((j) => j.name)).size >= legs.size) {
      return stop(dispatched, `all ${legs.size} legs ended: the run's queue job integrates what no integrate run took`);
    }
    // Legs waiting while none of them has a runner: this job may hold the one they wait for.
    const working = ours.filter((j) => j.status === "in_progress").length;
    const queued = ours.filter((j) => j.status !== "in_progress" && j.status !== "completed").length;
    starvedMs = working === 0 && queued > 0 ? starvedMs + pollMs : 0;
    if (starvedMs >= STARVED_MS) {
      return stop(
        dispatched,
        `${queued} leg(s) waited ${Math.round(starvedMs / 1000)} s for a runner while none worked: this job gives its runner back, and the run's queue job integrates the legs once all ended`,
      );
    }
    // A cancelled or skipped leg left no artifact: nothing of it to integrate.
    const fresh = ended.filter((j) => (j.conclusion === "success" || j.conclusion === "failure") && !taken.has(j.name));
    if (fresh.length > 0 && integrating !== null) {
      const status = await deps.github.getRun({ runId: integrating }).then(
        (run) => run.status,
        () => null,
      );
      if (status === "completed") integrating = null;
      else deps.log.info(`watch ${mission}: ${fresh.length} leg(s) ended; waits for integrate run ${integrating} (${status ?? "unread"}) before another`);
    }
    if (fresh.length > 0 && integrating === null) {
      const names = fresh.map((j) => legs.get(j.name) ?? j.name);
      try {
        const started = await deps.github.dispatchWorkflow({ workflow: deps.workflow, ref: deps.ref, inputs: integrateRunInputs(mission, input.runId) });
        // A server that gives no run id (GitHub Enterprise Server without run details): untracked.
        integrating = started.runId;
        dispatched += 1;
        for (const j of fresh) taken.add(j.name);
        deps.log.info(
          `watch ${mission}: ${names.join(", ")} ended; integrate run dispatched for the legs of run ${input.runId} ended so far (${legs.size - ended.length} still working)`,
        );
      } catch (error) {
        if (!(error instanceof OutcomeUnknownError)) {
          // An older workflow file without the integrate phase refuses it, and so would every
          // later dispatch: its work runs integrate their legs themselves, once all ended.
          return stop(dispatched, `no integrate run (${describe(error)}): the run's queue job integrates the legs once all ended`);
        }
        // It may have started; a later leg's end asks again, and an integrate run takes every leg ended by then.
        for (const j of fresh) taken.add(j.name);
        deps.log.warning(`watch ${mission}: the integrate run for ${names.join(", ")} may not have started (${describe(error)})`);
      }
    }
    await timing.sleep(pollMs);
  }
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
}
