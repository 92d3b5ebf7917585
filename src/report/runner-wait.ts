/**
 * How much parallelism a mission actually got (max_parallel against the runners): GitHub runs at
 * most the account's concurrent-job quota at once (Free 20, Pro 40, Team 60, Enterprise 500 on
 * hosted runners; a self-hosted pool is what it is) and queues the rest, so `max_parallel` above
 * it buys waiting, not speed. Read from the attempts' times alone: dispatched, started (a runner
 * took the job), its job ended (`exited_at`) or, when that is not known, finished.
 */
import type { Mission } from "../mission/index.ts";
import { formatDuration } from "./format.ts";

/** A wait for a runner longer than this is the quota, not GitHub's usual seconds to start a job. */
export const RUNNER_WAIT_NOTICE_MS = 60_000;

export interface RunnerWait {
  /** The most attempts whose jobs ran at the same moment. */
  readonly peak: number;
  /** Attempts that waited for a runner longer than {@link RUNNER_WAIT_NOTICE_MS} (or still wait). */
  readonly waited: number;
  /** The longest wait for a runner, in milliseconds. */
  readonly longestMs: number;
}

export function runnerWait(mission: Mission): RunnerWait {
  const now = Date.parse(mission.updated_at);
  const edges: [number, number][] = [];
  let waited = 0;
  let longestMs = 0;
  for (const item of mission.items) {
    for (const a of item.attempts) {
      const dispatched = Date.parse(a.dispatched_at);
      const started = a.started_at === null ? null : Date.parse(a.started_at);
      const still = a.status === "dispatched" && started === null;
      const wait = started !== null ? started - dispatched : still ? now - dispatched : null;
      if (wait !== null && Number.isFinite(wait)) {
        longestMs = Math.max(longestMs, wait);
        if (wait > RUNNER_WAIT_NOTICE_MS) waited += 1;
      }
      if (started === null || !Number.isFinite(started)) continue;
      // The job ended when its agent exited (on GitHub: the job's end); its result may reach the
      // mission much later, from a job that waited for a runner itself.
      const end = a.exited_at !== null ? Date.parse(a.exited_at) : a.finished_at !== null ? Date.parse(a.finished_at) : a.status === "running" ? now : null;
      if (end === null || !Number.isFinite(end) || end <= started) continue;
      edges.push([started, 1], [end, -1]);
    }
  }
  // Ends before starts at the same moment: a job that ended as another began did not overlap it.
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let running = 0;
  let peak = 0;
  for (const [, delta] of edges) {
    running += delta;
    peak = Math.max(peak, running);
  }
  return { peak, waited, longestMs };
}

/**
 * A warning for the tracking comment when attempts waited for runners while fewer than
 * `max_parallel` ran: the runs got less concurrency than the mission asked for. Null otherwise.
 */
export function runnerWaitWarning(mission: Mission): string | null {
  const wait = runnerWait(mission);
  const asked = mission.settings.max_parallel;
  if (wait.waited === 0 || wait.peak >= asked) return null;
  const attempts = wait.waited === 1 ? "1 attempt" : `${wait.waited} attempts`;
  return (
    `⚠️ **Runners:** \`max_parallel\` is ${asked}, but at most ${wait.peak} attempt${wait.peak === 1 ? "" : "s"} ran at once; ${attempts} waited for a runner ` +
    `(the longest ${formatDuration(wait.longestMs)}). GitHub runs at most your account's concurrent jobs at once (hosted runners: Free 20, Pro 40, ` +
    "Team 60, Enterprise 500; naruto's other jobs count too) and queues the rest. Waiting does not count against `item_timeout` (an attempt's clock " +
    "starts with its job), only against `limits.queue_timeout`. Lower `limits.max_parallel`, or give the agent jobs more runners (the `NARUTO_RUNS_ON_AGENTS` variable)."
  );
}
