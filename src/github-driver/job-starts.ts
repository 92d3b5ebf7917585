/**
 * When each attempt's job started and ended. An attempt's clock starts when its job starts, not
 * at its dispatch (runners queue jobs beyond the account's concurrent-job quota), and stops when
 * its job ends: its agent has exited then, and what is left, recording its result, waits for
 * naruto's own jobs, which queue for runners like any job (the mission's tick bounds that wait by
 * `queue_timeout`). A job's `started_at` is read only once the job is under way or ran to an end:
 * GitHub gives a queued job the time it was queued there (actions/runner#1881), and a job
 * cancelled while queued never started.
 */
import type { GitHubPort, WorkflowJob } from "../github/index.ts";
import type { Mission } from "../mission/index.ts";
import type { MissionEvent } from "../mission/index.ts";
import { runIdOf, workLegName } from "./mission-id.ts";

/** A job that a runner took: under way, or ended with a result of its own. */
export function jobStartedAt(job: Pick<WorkflowJob, "status" | "conclusion" | "startedAt">): string | null {
  if (job.startedAt === null) return null;
  if (job.status === "in_progress") return job.startedAt;
  return job.status === "completed" && (job.conclusion === "success" || job.conclusion === "failure") ? job.startedAt : null;
}

/**
 * A job that ran to an end of its own (not cancelled, not skipped): its steps, the agent's among
 * them, are over, and a leg's artifact is uploaded.
 */
export function jobEndedAt(job: Pick<WorkflowJob, "status" | "conclusion" | "startedAt" | "completedAt">): string | null {
  return jobStartedAt(job) !== null && job.status === "completed" ? job.completedAt : null;
}

/**
 * The attempts of `mission` whose job's start or end is not recorded yet (waiting for a runner,
 * or running with their agent not known to have exited), by the run that holds their jobs.
 */
export function legsByRun(mission: Mission): Map<number, { item: string; attempt: number }[]> {
  const runs = new Map<number, { item: string; attempt: number }[]>();
  for (const item of mission.items) {
    const last = item.attempts.at(-1);
    const runId = runIdOf(last?.runner ?? null);
    if (!last || runId === null) continue;
    const waiting = last.status === "dispatched" && last.started_at === null;
    const running = last.status === "running" && last.exited_at === null;
    if (!waiting && !running) continue;
    runs.set(runId, [...(runs.get(runId) ?? []), { item: item.id, attempt: last.n }]);
  }
  return runs;
}

/**
 * What the jobs of one run say about its legs: `attempt_started` for each leg a runner took (at
 * the job's start), and `agent_exited` for each leg whose job ended (at its end). An event the
 * mission already holds is a redelivery to it, which changes nothing.
 */
export function legEventsOf(mission: Mission, legs: readonly { item: string; attempt: number }[], jobs: readonly WorkflowJob[]): MissionEvent[] {
  const events: MissionEvent[] = [];
  for (const leg of legs) {
    const job = jobs.find((j) => j.name === workLegName(mission.id, leg.item, leg.attempt));
    const started = job === undefined ? null : jobStartedAt(job);
    if (job === undefined || started === null) continue;
    events.push({ type: "attempt_started", at: started, item: leg.item, attempt: leg.attempt, runner: job.url });
    const ended = jobEndedAt(job);
    if (ended !== null) events.push({ type: "agent_exited", at: ended, item: leg.item, attempt: leg.attempt });
  }
  return events;
}

/** Reads the jobs of each run with legs whose start or end is not recorded (one list per run) and says what they did. */
export async function readLegJobs(github: Pick<GitHubPort, "listJobs">, mission: Mission): Promise<MissionEvent[]> {
  const events: MissionEvent[] = [];
  for (const [runId, legs] of legsByRun(mission)) events.push(...legEventsOf(mission, legs, await github.listJobs({ runId })));
  return events;
}
