/**
 * The public face of `src/queue/`: the merge queue (docs/architecture.md): integrate checkpoints onto
 * `naruto/<mission>` as one commit each, verify a batch, bisect a red one. Other folders import
 * it only through this file.
 */
export { createQueueBranch, integrate } from "./queue.ts";
export type { CreateQueueInput, IntegrateInput } from "./queue.ts";
export { CheckpointInputError, QueueMissingError, QueueRaceError, QueueTamperedError, SpeculationDroppedError } from "./types.ts";
export type { BatchResult, Checkpoint, CheckpointResult, ConflictedResult, FlakyResult, IntegratedResult, VerifyFailedResult } from "./types.ts";
export { compareAndSwap, queueRefName, readRef, QueueRefError } from "./ref.ts";
export { QueueAccountingError } from "./results.ts";
export { mergeCheckpoint, supportsMergeBase } from "./merge.ts";
export type { MergeEngine, MergeEngineChoice, MergeOutcome } from "./merge.ts";
export { judgeRun, verifyOnce } from "./verify.ts";
export type { JudgePolicy, ProcessResult, ReportRead, VerifyCandidate, VerifyOutcome } from "./verify.ts";
export { dropItems, nextBisectStep, recordVerify, redsNeeded, startBisect } from "./bisect.ts";
export type { BisectOptions, BisectState, BisectStep } from "./bisect.ts";
export { MAX_FAILURES, MAX_FILES, mergeReports, parseJUnit, TestReportError, testsRun } from "./test-report.ts";
export type { TestFileCount, TestReport } from "./test-report.ts";
export { createTreeCache } from "./read.ts";
export type { TreeCache } from "./read.ts";
export { tail } from "./verify.ts";
