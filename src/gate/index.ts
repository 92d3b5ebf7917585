/**
 * The public face of `src/gate/`: what a checkpoint may hold (docs/architecture.md "The gate"): the
 * gate over objects and names, the scope check against an item's writes, change listing, the
 * checkpoint message and the worker branch. Other folders import it only through this file.
 */
export { BranchNameError, workerBranch } from "./worker-branch.ts";
export { listChanges, parseDiffTree, changedPaths, GitOutputError, SYMLINK_MODE } from "./changes.ts";
export type { Change } from "./changes.ts";
export { checkScope, symlinkProblem } from "./scope.ts";
export type { ScopePolicy, ScopeResult, ScopeRule, ScopeViolation } from "./scope.ts";
export { checkGate, gatePolicy, gitDirCall, STRICT_GATE, DEFAULT_MAX_FILE_SIZE } from "./gate.ts";
export type { GatePolicy, GateResult, GateRule, GateViolation } from "./gate.ts";
export { DEFAULT_AUTHOR, formatCheckpointMessage } from "./checkpoint-message.ts";
export type { CheckpointMessage, Identity } from "./checkpoint-message.ts";
export { nameProblem } from "./names.ts";
export type { NameProblem } from "./names.ts";
export { showPath } from "./objects.ts";
export { parseTree } from "./tree.ts";
