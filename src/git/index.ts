// Worker side: work trees, change listing, scope check, checkpoint.
export { createWorktree, recreateWorktree, removeWorktree, readRefs, workerBranch, worktreeArgs, WorktreeError, WORKTREES_DIR } from "./worktree.ts";
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
