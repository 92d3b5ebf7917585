/**
 * The loop that plays GitHub's scheduler: take the dispatches the fake recorded, run them, and
 * again, until a round records no new dispatch. Runs are started in the order they were
 * dispatched; `parallelRuns` > 1 runs that many at once (concurrency groups then matter), and a
 * dispatch made while runs go starts without waiting for one of them to end.
 */
import type { FakeGitHub } from "../fake-github/index.ts";
import { formatRun } from "./format.ts";
import type { ActionsSimulator } from "./simulator.ts";
import type { RunResult } from "./types.ts";

/** The mission did not settle within `maxRuns` runs: a dispatch loop, or a bound set too low. */
export class RunawayError extends Error {
  override readonly name = "RunawayError";
  constructor(
    readonly runs: readonly RunResult[],
    maxRuns: number,
  ) {
    super(
      `more than ${maxRuns} workflow runs without settling; last runs:\n${runs
        .slice(-3)
        .map((r) => formatRun(r))
        .join("\n")}`,
    );
  }
}

export interface RunUntilQuietInput {
  readonly fake: FakeGitHub;
  readonly simulator: ActionsSimulator;
  /** Default 60. */
  readonly maxRuns?: number;
  /** Default 1: one run at a time, deterministic. */
  readonly parallelRuns?: number;
}

/** Runs every dispatch until none is new; resolves with the runs it made, in dispatch order. */
export async function runUntilQuiet(input: RunUntilQuietInput): Promise<RunResult[]> {
  const maxRuns = input.maxRuns ?? 60;
  const parallel = Math.max(1, input.parallelRuns ?? 1);
  const done: RunResult[] = [];
  const queue = input.simulator.takeDispatches();
  const running = new Set<Promise<void>>();
  while (queue.length > 0 || running.size > 0) {
    while (queue.length > 0 && running.size < parallel) {
      if (done.length + running.size >= maxRuns) throw new RunawayError(done, maxRuns);
      const record = queue.shift();
      if (record === undefined) break;
      const task: Promise<void> = input.simulator.runDispatch(record).then((run) => {
        done.push(run);
        running.delete(task);
      });
      running.add(task);
    }
    // Side by side, what a run dispatches while runs go (an integrate run when a leg ends)
    // starts as soon as there is room, as GitHub would start it.
    if (running.size > 0) await Promise.race(parallel > 1 ? [...running, new Promise((resolve) => setTimeout(resolve, 200))] : running);
    queue.push(...input.simulator.takeDispatches());
    // The repository's own workflows, for the pushes and pull requests that start them (CI).
    if (queue.length === 0 && running.size === 0) done.push(...(await input.simulator.runEvents()));
  }
  return done;
}
