import type { BisectOutcome } from "./bisect-batch.ts";
import { displayPath } from "../git/index.ts";
import type { Checkpoint, CheckpointResult } from "./types.ts";

/** The queue failed to account for a checkpoint: a bug, reported loudly, never a silent drop. */
export class QueueAccountingError extends Error {
  override readonly name = "QueueAccountingError";
}

/** One typed result per checkpoint, in input order; every checkpoint must be accounted for. */
export function collectResults(
  checkpoints: readonly Checkpoint[],
  outcome: Pick<BisectOutcome, "integrated" | "failed" | "conflicted" | "flaky">,
): CheckpointResult[] {
  return checkpoints.map((checkpoint, index): CheckpointResult => {
    const integrated = outcome.integrated.get(index);
    if (integrated) {
      return { status: "integrated", checkpoint, commit: integrated.commit, changed: integrated.changed.map(displayPath), merged: integrated.merged };
    }
    const paths = outcome.conflicted.get(index);
    if (paths) return { status: "conflicted", checkpoint, paths: paths.map(displayPath) };
    const failed = outcome.failed.get(index);
    if (failed) return { status: "verify_failed", checkpoint, exitCode: failed.exitCode, outputTail: failed.outputTail };
    const flip = outcome.flaky.get(index);
    if (flip) {
      const lastRed = [...flip.runs].reverse().find((r) => !r.green);
      return {
        status: "flaky",
        checkpoint,
        candidate: flip.commit,
        runs: flip.runs.map((r) => ({ green: r.green, exitCode: r.exitCode })),
        outputTail: lastRed?.outputTail ?? "",
      };
    }
    throw new QueueAccountingError(`checkpoint ${checkpoint.item}#${checkpoint.attempt} has no result; nothing was integrated`);
  });
}
