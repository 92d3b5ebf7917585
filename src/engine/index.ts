/**
 * What both drivers share (docs/architecture.md): running an attempt, integrating a batch, planning with
 * the planner agent, and the arbiter's review. The local driver (`src/local/`) and the Action's
 * jobs (`src/action/`) call these; nothing here imports a driver.
 */
export { AttemptStepError, attemptRef, runAttempt } from "./attempt.ts";
export type { AttemptFinished } from "./attempt.ts";
export { integrateBatch, NARUTO_COMMITTER } from "./integrate-batch.ts";
export { refreshQueue } from "./refresh.ts";
export type { RefreshOutcome, Refreshed } from "./refresh.ts";
export type { Candidate, Integrated, IntegratorContext, PipelineOptions } from "./integrate-batch.ts";
export { planCheckOptions, runPlanner } from "./planner.ts";
export { plannedEvent } from "./planned-event.ts";
export { checkMissionProof, reviewAgentFor, reviewLocally } from "./review.ts";
export type { ReviewContext, Reviewed } from "./review.ts";
export { attemptDir, gitCommonDir, missionDir } from "./records.ts";
export type { EngineContext, WorkerContext } from "./context.ts";
export { keepUnfinishedWork } from "./keep-work.ts";
export { queueVerifier } from "./queue-verify.ts";
export { shownPrograms } from "./contained.ts";
export { integratedDiff } from "./review.ts";
