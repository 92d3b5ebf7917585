/** The mission's public face: statuses, the scheduling policy and its simulation. */
export * from "./status.ts";
export * from "./scheduler.ts";
export * from "./simulate.ts";
export { VERDICTS, missionSchema, parseMission } from "./document.ts";
export type { Finding, Mission, MissionItem, MissionSettings, PlanSource, QuotedText, TamperFinding, Verdict, VerdictKind } from "./document.ts";
export { IllegalEventError } from "./errors.ts";
export { baseCheckSchema, flipSchema, testFindingSchema, testReportSchema } from "./queue-checks.ts";
export type { BaseCheck, BatchRecord, Flip, RefreshRecord, TestFinding, TestReportRecord } from "./queue-checks.ts";
export { attemptOutcomeSchema, integrationResultSchema, keptWorkSchema, PERMANENT_CAUSES } from "./events.ts";
export type {
  AttemptOrder,
  AttemptOutcome,
  KeptWork,
  CheckpointOrder,
  IntegrationResult,
  MissionCommand,
  MissionEvent,
  PermanentCause,
  PlannedItem,
} from "./events.ts";
export {
  DOCUMENT_FILE,
  ITEMS_FOLDER,
  ITEMS_PER_FOLDER,
  PROOF_FILE,
  WHOLE_DOCUMENT_FILE,
  documentText,
  folderName,
  itemFileName,
  itemPath,
  joinRecords,
  missionFiles,
  recordText,
  treeContent,
} from "./records.ts";
export type { TreeEntry } from "./records.ts";
export { keptPlace, keptWorkClause, outcomeReason } from "./kept-work.ts";
export { resumption } from "./resume.ts";
export { isNeverStarted } from "./attempt-events.ts";
export { step } from "./step.ts";
export { MissionNotFoundError, applyEvent, applyEvents } from "./store.ts";
export type { BatchResult, MissionStore, SaveResult, StoredMission } from "./store.ts";
export { formatUsd } from "./usd.ts";
