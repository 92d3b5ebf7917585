/**
 * Reports (docs/architecture.md): pure renderers of the mission document — the JSON result,
 * the markdown report, the tracking and verdict comments, the Mermaid graph. The public face of
 * `src/report`.
 */
export { missionResult, type MissionResult, type MissionResultItem } from "./result-json.ts";
export { missionReport, type ReportOptions } from "./markdown.ts";
export { trackingComment, trackingMarker, type TrackingLinks } from "./tracking-comment.ts";
export { baseMovedLine, queueCheckLines } from "./queue-checks.ts";
export { verdictComment, verdictMarker } from "./verdict-comment.ts";
export { COMMENT_GRAPH_ITEMS, graphMarkdown, MERMAID_MAX_EDGES, MERMAID_MAX_TEXT, mermaidBlock, mermaidLabel, planGraph } from "./mermaid.ts";
export { COMMENT_LIMIT } from "./fit.ts";
export { readProof, type ProofConflictSummary, type ProofSummary } from "./proof-summary.ts";
export { codeSpan, inlineText } from "./escape.ts";
export { formatPlanHuman } from "./plan-format.ts";
export { planReport } from "./plan-report.ts";
export type { PlanCommandOptions, PlanJson, PlanReport } from "./plan-report.ts";
export { resultCiNote, type ResultCi } from "./result-ci.ts";
export { runnerWait, runnerWaitWarning, type RunnerWait } from "./runner-wait.ts";
