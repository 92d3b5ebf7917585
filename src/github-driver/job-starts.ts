/**
 * When each attempt's job started: an attempt's clock starts then, not at its dispatch (runners
 * queue jobs beyond the account's concurrent-job quota). A job's `started_at` is
 * read only once the job is under way or ran to an end: GitHub gives a queued job the time it was
 * queued there (actions/runner#1881), and a job cancelled while queued never started.
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

/** The attempts of `mission` that wait for their job to start, by the run that holds it. */
export function waitingByRun(mission: Mission): Map<number, { item: string; attempt: number }[]> {
  const runs = new Map<number, { item: string; attempt: number }[]>();
  for (const item of mission.items) {
    const last = item.attempts.at(-1);
    const runId = runIdOf(last?.runner ?? null);
    if (!last || last.status !== "dispatched" || last.started_at !== null || runId === null) continue;
    runs.set(runId, [...(runs.get(runId) ?? []), { item: item.id, attempt: last.n }]);
  }
  return runs;
}

/** `attempt_started` for each waiting attempt of `run` whose leg a runner took, at the job's start. */
export function startsOf(mission: Mission, waiting: readonly { item: string; attempt: number }[], jobs: readonly WorkflowJob[]): MissionEvent[] {
  const events: MissionEvent[] = [];
  for (const w of waiting) {
    const job = jobs.find((j) => j.name === workLegName(mission.id, w.item, w.attempt));
    const at = job === undefined ? null : jobStartedAt(job);
    if (job === undefined || at === null) continue;
    events.push({ type: "attempt_started", at, item: w.item, attempt: w.attempt, runner: job.url });
  }
  return events;
}

/** Reads the jobs of each run with attempts waiting to start (one list per run) and says which started. */
export async function readJobStarts(github: Pick<GitHubPort, "listJobs">, mission: Mission): Promise<MissionEvent[]> {
  const events: MissionEvent[] = [];
  for (const [runId, waiting] of waitingByRun(mission)) events.push(...startsOf(mission, waiting, await github.listJobs({ runId })));
  return events;
}
