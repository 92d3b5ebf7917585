// Worker side: work trees, change listing, scope check, checkpoint.
export { createWorktree, recreateWorktree, removeMissionWorktrees, removeWorktree, readRefs, workerBranch, worktreeArgs, worktreePath, WorktreeError, WORKTREES_DIR } from "./worktree.ts";
export type { Worktree, WorktreeProblem, WorktreeTarget } from "./worktree.ts";
export { listChanges, parseDiffTree, changedPaths, GitOutputError, SYMLINK_MODE } from "./changes.ts";
export type { Change } from "./changes.ts";
export { checkHistory, diffRefs } from "./history.ts";
export type { HistoryCheck, HistoryProblem, RefChange } from "./history.ts";
export { checkScope, symlinkProblem } from "./scope.ts";
export type { ScopePolicy, ScopeResult, ScopeRule, ScopeViolation } from "./scope.ts";
export { DEFAULT_AUTHOR, formatCheckpointMessage, snapshotWorktree, writeCheckpoint } from "./checkpoint.ts";
export type { CheckpointMessage, Identity } from "./checkpoint.ts";
export { finishAttempt, AttemptMismatchError } from "./attempt.ts";
export type { AttemptOutcome, FinishAttemptOptions } from "./attempt.ts";
// Merge queue: integrate checkpoints onto `naruto/<mission>`, verify, bisect (queue*.ts, merge.ts, verify*.ts, bisect.ts).
export { createQueueBranch, integrate } from "./queue.ts";
export type { CreateQueueInput, IntegrateInput } from "./queue.ts";
export { CheckpointInputError, QueueMissingError, QueueRaceError } from "./queue-types.ts";
export type { BatchResult, Checkpoint, CheckpointResult, ConflictedResult, IntegratedResult, VerifyFailedResult } from "./queue-types.ts";
export { compareAndSwap, queueRefName, readRef, QueueRefError } from "./queue-ref.ts";
export { QueueAccountingError } from "./queue-results.ts";
export { mergeCheckpoint, supportsMergeBase } from "./merge.ts";
export type { MergeEngine, MergeEngineChoice, MergeOutcome } from "./merge.ts";
export { createVerifier } from "./verify.ts";
export type { QueueVerify, VerifyOutcome, VerifyRunner, VerifyRequest, ProcessResult } from "./verify.ts";
export { createVerifyRunner } from "./verify-runner.ts";
export type { VerifyRunnerOptions } from "./verify-runner.ts";
export { dropItems, nextBisectStep, recordVerify, startBisect } from "./bisect.ts";
export type { BisectState, BisectStep } from "./bisect.ts";
export { GitParseError } from "./queue-parse.ts";
