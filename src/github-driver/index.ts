/**
 * The GitHub driver (docs/architecture.md): what the App and the Action share — reading `/naruto`
 * comments, deciding who may trigger, and turning the engine's commands into dispatches,
 * comments, pull requests and check runs through the GitHub port.
 */
export { helpText, parseCommand, type NarutoCommand } from "./command.ts";
export { mayTrigger, PERMISSION_ORDER, rank, refusalText, type RepoPermission, type TriggerDecision, type TriggerFacts } from "./gate.ts";
export type { DriverDeps, DriverLog } from "./deps.ts";
export type { ResultCi } from "../report/index.ts";
export { handleComment, type CommentDeps, type CommentEvent, type CommentOutcome, type PullRequestHead } from "./handle-comment.ts";
export { carryOut, cancelRuns, type CarryOutResult, type IntegrateCheckpoints } from "./carry-out.ts";
export { ensureQueuePullRequest, issueOf, publishMission, publishTracking, publishVerdict, queuePullTitle } from "./publish.ts";
export { ensureQueueBranch, requestMission, type MissionRequest } from "./start-mission.ts";
export { fixReview, reviewPullRequest } from "./pull-commands.ts";
export { fixReviewPlan, type FixReviewPlan, type FixReviewPlanDocument } from "./fix-review-plan.ts";
export { missionIdFor, runIdOf } from "./mission-id.ts";
export { missionSettings, readConfigAt } from "./settings.ts";
export { missionsOfIssue } from "./find-mission.ts";
export { WORKFLOW_BOT } from "./deps.ts";
export { commentEventOf, dispatchInputOf } from "./event-payload.ts";
export type { DispatchInput } from "./event-payload.ts";
export { pullRequestHeadVia } from "./handle-comment.ts";
export { answerMissedCommands } from "./missed-commands.ts";
export { integrateRunInputs, workLegName } from "./mission-id.ts";
export { message } from "./publish.ts";
export { startScheduledMissions } from "./schedules.ts";
export { jobEndedAt, jobStartedAt, legEventsOf, legsByRun, readLegJobs } from "./job-starts.ts";
export { catchUpBase, type BaseCatchUp } from "./moved-base.ts";
export { releaseRefresh, requestRefresh, type RefreshRequest } from "./refresh.ts";
export { pushedBase, refreshOnPush, type PushEvent, type PushOutcome } from "./refresh-on-push.ts";
export { workflowChangeText } from "./workflow-refusal.ts";
