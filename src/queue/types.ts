/**
 * The merge queue's inputs and results (docs/architecture.md). Everything the queue reports is data a
 * report or the mission engine can use without asking git again.
 */
import type { TestReport } from "./test-report.ts";

/** The commit an attempt ended with. Its one parent is `base` (the queue head at its start). */
export interface Checkpoint {
  readonly item: string;
  readonly attempt: number;
  /** Full object id of the checkpoint commit. */
  readonly commit: string;
  /** Full object id of the commit the attempt started from (the checkpoint's parent). */
  readonly base: string;
}

/** Who naruto writes as committer of queue commits (the author is always the checkpoint's). */
export interface Identity {
  readonly name: string;
  readonly email: string;
}

/** On the queue: `commit` is its queue commit, `changed` the paths that commit changes. */
export interface IntegratedResult {
  readonly status: "integrated";
  readonly checkpoint: Checkpoint;
  readonly commit: string;
  readonly changed: readonly string[];
  /** True when a path had changed underneath and a three-way merge was needed (slow path). */
  readonly merged: boolean;
}

/** A real three-way merge conflicted: nothing of the checkpoint is on the queue. */
export interface ConflictedResult {
  readonly status: "conflicted";
  readonly checkpoint: Checkpoint;
  readonly paths: readonly string[];
}

/** Bisection isolated this checkpoint as one that makes the verify command fail. */
export interface VerifyFailedResult {
  readonly status: "verify_failed";
  readonly checkpoint: Checkpoint;
  readonly exitCode: number | null;
  readonly outputTail: string;
}

/**
 * Bisection suspected this checkpoint, and its candidate's verdict flipped (red, then green on the
 * same commit): the verify is flaky there. Nothing of it is on the queue and nothing is blamed on
 * it; it waits for a later batch.
 */
export interface FlakyResult {
  readonly status: "flaky";
  readonly checkpoint: Checkpoint;
  /** The candidate whose verdict flipped. */
  readonly candidate: string;
  /** Its runs in order: green or not, and the exit code. */
  readonly runs: readonly { readonly green: boolean; readonly exitCode: number | null }[];
  /** The output of its last red run. */
  readonly outputTail: string;
}

export type CheckpointResult = IntegratedResult | ConflictedResult | VerifyFailedResult | FlakyResult;

/** What one `integrate` call did. `results` are in the order the checkpoints were given. */
export interface BatchResult {
  readonly queueRef: string;
  /** The head the batch was built on (the value the compare-and-swap replaced). */
  readonly oldHead: string;
  /** The head afterwards; equal to `oldHead` when nothing was integrated. */
  readonly newHead: string;
  readonly results: readonly CheckpointResult[];
  /** How many times the verify command ran for this batch, over all race retries. */
  readonly verifyRuns: number;
  /** How many times the queue moved underneath and the batch was rebuilt from the new head. */
  readonly raceRetries: number;
  /** What the tests did on the new head (the run that verified it), when a report was read. */
  readonly report: TestReport | null;
}

/** The input named a checkpoint the queue cannot take (a caller's bug, not a conflict). */
export class CheckpointInputError extends Error {
  override readonly name = "CheckpointInputError";
  constructor(
    readonly checkpoint: Checkpoint,
    reason: string,
  ) {
    super(`checkpoint ${checkpoint.item}#${checkpoint.attempt} (${checkpoint.commit}): ${reason}`);
  }
}

/** The queue ref kept moving; the batch was not integrated. Run the batch again. */
export class QueueRaceError extends Error {
  override readonly name = "QueueRaceError";
  constructor(
    readonly queueRef: string,
    readonly attempts: number,
  ) {
    super(`${queueRef} moved during each of ${attempts} attempts to integrate; nothing was integrated, run the batch again`);
  }
}

/**
 * The queue is not where naruto left it: something other than naruto moved it. Nothing is built
 * on a head naruto did not write (docs/architecture.md); `found` is what the ref held.
 */
export class QueueTamperedError extends Error {
  override readonly name = "QueueTamperedError";
  constructor(
    readonly queueRef: string,
    readonly expected: string,
    readonly found: string | null,
  ) {
    super(`${queueRef} was moved by something other than naruto: naruto left it at ${expected}, it is ${found === null ? "gone" : `at ${found}`}`);
  }
}

/** The queue ref is missing: create it with `createQueueBranch` first. */
export class QueueMissingError extends Error {
  override readonly name = "QueueMissingError";
  constructor(readonly queueRef: string) {
    super(`${queueRef} does not exist; create the queue branch at the mission's base first`);
  }
}

/**
 * A speculative batch was built on the candidate of the batch before it, which did not land
 * whole (it went red, or a checkpoint of it did not merge): nothing of this batch landed. Its
 * checkpoints go to the queue again, built on where the queue is now.
 */
export class SpeculationDroppedError extends Error {
  override readonly name = "SpeculationDroppedError";
  constructor(
    readonly queueRef: string,
    readonly assumed: string,
    readonly landed: string | null,
  ) {
    super(
      `${queueRef}: a batch was built on ${assumed.slice(0, 12)}, the candidate before it, which did not land (the queue is at ${landed?.slice(0, 12) ?? "no new head"}); it is dropped and built again`,
    );
  }
}
