/**
 * The arbiter (docs/architecture.md): policy rules that need no model, the review agent's verdict JSON,
 * and the decision that turns both into the mission's verdict. The public face of `src/arbiter`.
 */
export { BLOCKING_RULES, NOT_INTEGRATED_RULES, RULES, type RuleName } from "./rules.ts";
export { policyFindings, type PolicyInput, type ProofCheck } from "./policy.ts";
export { parsePatch, testsWeakenedFindings, type ItemPatch, type PatchFile } from "./tests-weakened.ts";
export { isTestFile, skipMarkerIn } from "./test-markers.ts";
export { decideVerdict, parseReviewOutput, reviewOutputSchema, type ReviewParse, type VerdictInput } from "./verdict.ts";
export { buildReviewPrompt, chunkDiff, REVIEW_CHUNK_CHARS, type ReviewPromptInput } from "./review-prompt.ts";
export { reviewMission, type ReviewAgent, type ReviewMissionInput } from "./review.ts";
