// Worker side: the worker branch, change listing, scope check, checkpoint message.
export { BranchNameError, workerBranch } from "./worker-branch.ts";
export { listChanges, parseDiffTree, changedPaths, GitOutputError, SYMLINK_MODE } from "./changes.ts";
export type { Change } from "./changes.ts";
export { checkScope, symlinkProblem } from "./scope.ts";
export type { ScopePolicy, ScopeResult, ScopeRule, ScopeViolation } from "./scope.ts";
export { checkGate, gatePolicy, gitDirCall, STRICT_GATE, DEFAULT_MAX_FILE_SIZE } from "./gate.ts";
export type { GatePolicy, GateResult, GateRule, GateViolation } from "./gate.ts";
export { DEFAULT_AUTHOR, formatCheckpointMessage } from "./checkpoint.ts";
export type { CheckpointMessage, Identity } from "./checkpoint.ts";
// Merge queue: integrate checkpoints onto `naruto/<mission>`, verify, bisect (queue*.ts, merge.ts, verify*.ts, bisect.ts).
export { createQueueBranch, integrate } from "./queue.ts";
export type { CreateQueueInput, IntegrateInput } from "./queue.ts";
export { CheckpointInputError, QueueMissingError, QueueRaceError, QueueTamperedError } from "./queue-types.ts";
export type { BatchResult, Checkpoint, CheckpointResult, ConflictedResult, IntegratedResult, VerifyFailedResult } from "./queue-types.ts";
export { compareAndSwap, queueRefName, readRef, QueueRefError } from "./queue-ref.ts";
export { QueueAccountingError } from "./queue-results.ts";
export { mergeCheckpoint, supportsMergeBase } from "./merge.ts";
export type { MergeEngine, MergeEngineChoice, MergeOutcome } from "./merge.ts";
export { verifyOnce } from "./verify.ts";
export type { ProcessResult, VerifyCandidate, VerifyOutcome } from "./verify.ts";
export { dropItems, nextBisectStep, recordVerify, startBisect } from "./bisect.ts";
export type { BisectState, BisectStep } from "./bisect.ts";
export { GitParseError } from "./queue-parse.ts";
