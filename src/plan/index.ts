/**
 * The plan model and the no-overlap proof (docs/architecture.md): the public face of `src/plan`.
 * Everything here is pure: data in, data out.
 */
export type {
  ConflictOrder,
  OrderedItem,
  Plan,
  PlanConflict,
  PlanError,
  PlanItem,
  PlanLimits,
  PlanResult,
} from "./types.ts";
export {
  ROOT,
  isAncestorOrSelf,
  isCoveredBy,
  keyOf,
  normalizePath,
  overlapOf,
  pathKey,
  pathsOverlap,
  repoPathOf,
  type NormalizeResult,
  type RepoPath,
} from "./paths.ts";
export { findFencedPlan, parsePlanText, type FencedPlan, type ParseResult, type PlanFormat } from "./parse.ts";
export { DEFAULT_ESTIMATE, MAX_ESTIMATE, parseEstimate, type EstimateResult } from "./estimate.ts";
export { ITEM_ID_PATTERN, itemIdProblem, planItemSchema, planSchema } from "./schema.ts";
export { DEFAULT_MAX_ITEMS, DEFAULT_MAX_PROMPT_CHARS, DEFAULT_PROTECTED, defaultPlanLimits } from "./limits.ts";
export { formatPlanError, validatePlan } from "./validate.ts";
export { findConflicts, type WriteConflict } from "./overlap.ts";
export { orderPlan, type OrderOptions, type OrderedConflict, type PlanOrder } from "./order.ts";
export { PROOF_SCHEMA, buildProof, type Proof, type ProofConflict, type ProofItem } from "./proof.ts";
export { planDigest } from "./digest.ts";
export { verifyProof, type ProofVerdict } from "./verify-proof.ts";
export { checkPlan, type CheckOptions, type CheckResult } from "./check.ts";
// Critical-path ranks for the scheduler (maintained with src/mission).
export * from "./ranks.ts";
export { AGENT_STARTUP_PATHS } from "./limits.ts";
export { dependencyLayers, longestPath, transitiveReduction } from "./reduction.ts";
