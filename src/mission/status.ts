/**
 * Mission and item statuses (docs/architecture.md), shared by the scheduler and the mission engine.
 */

/** Every item status, in the order an item usually moves through them. */
export const ITEM_STATUSES = [
  "pending",
  "ready",
  "running",
  "checkpointed",
  "integrated",
  "failed",
  "conflicted",
  "out_of_scope",
  "timed_out",
  "skipped",
  "cancelled",
  "tampered",
] as const;

/**
 * Where an item stands. `pending`: waits for dependencies; `ready`: dependencies integrated,
 * waits for a free agent; `running`: an attempt is under way; `checkpointed`: the attempt ended
 * in a checkpoint that waits for the queue; `integrated`: the checkpoint is on the queue.
 * The four {@link FailureStatus}es end an attempt without integrating it; `skipped` and
 * `cancelled` end an item that will not run; `tampered` ends an item for good whose attempt ran
 * while something other than naruto changed the repository or naruto's refs (docs/architecture.md):
 * it is not retried, and the verdict is `block`.
 */
export type ItemStatus = (typeof ITEM_STATUSES)[number];

/** How an attempt can end without being integrated; each may be retried (docs/architecture.md). */
export type FailureStatus = "failed" | "conflicted" | "out_of_scope" | "timed_out";

/** Every mission status. */
export const MISSION_STATUSES = ["planning", "awaiting_approval", "running", "reviewing", "done", "failed", "cancelled"] as const;

/** Where a mission stands. */
export type MissionStatus = (typeof MISSION_STATUSES)[number];

/** The attempt ended without being integrated: `failed`, `conflicted`, `out_of_scope`, `timed_out`. */
export function isFailure(status: ItemStatus): status is FailureStatus {
  return status === "failed" || status === "conflicted" || status === "out_of_scope" || status === "timed_out";
}

/**
 * Nothing is under way or waiting for the item: it is integrated, failed (maybe to be retried),
 * skipped or cancelled. Use {@link isFinal} to know whether it can still change.
 */
export function isTerminal(status: ItemStatus): boolean {
  return status === "integrated" || status === "skipped" || status === "cancelled" || status === "tampered" || isFailure(status);
}

/**
 * The item will never change again: integrated, skipped, cancelled, or a failure with no
 * attempts left. A failure with attempts left is not final: the scheduler starts it again.
 */
export function isFinal(status: ItemStatus, attemptsLeft: number): boolean {
  return isTerminal(status) && !(isFailure(status) && attemptsLeft > 0);
}

/**
 * The item occupies an agent. A `checkpointed` item does not: its agent has exited and its
 * checkpoint only waits for the queue.
 */
export function isRunning(status: ItemStatus): boolean {
  return status === "running";
}

/** The mission has ended: `done`, `failed` or `cancelled`. */
export function isMissionTerminal(status: MissionStatus): boolean {
  return status === "done" || status === "failed" || status === "cancelled";
}
