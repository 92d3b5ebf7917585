/**
 * The GitHub port and its Octokit adapter (docs/architecture.md): comments, permissions, dispatch,
 * runs, refs, pull requests, check runs, the Git Data API, and the mission store on GitHub.
 * The public face of `src/github`.
 */
export type {
  ChangedFile,
  ChangeStatus,
  CheckConclusion,
  CheckOutput,
  CheckRun,
  CheckStatus,
  Comment,
  Commit,
  Comparison,
  DispatchResult,
  GitHubPort,
  GitRef,
  Permission,
  PullRequest,
  PullRequestInfo,
  Reaction,
  ReviewComment,
  ReviewThread,
  RepoRef,
  TreeEntry,
  UserPermission,
  RunArtifact,
  WorkflowJob,
  WorkflowRun,
  WorkflowStep,
} from "./port.ts";
export { createGitHub, type CreateGitHubOptions } from "./octokit-adapter.ts";
export type { EtagCache, GitHubLog } from "./octokit-client.ts";
export { createEtagCache } from "./octokit-client.ts";
export { createDispatchMemory, type DispatchMemory } from "./adapter-actions.ts";
export {
  ConflictError,
  GitHubError,
  GitHubTimeoutError,
  GraphqlError,
  type GraphqlErrorEntry,
  InputLimitError,
  NotFastForwardError,
  OutcomeUnknownError,
  PullRequestExistsError,
  RefExistsError,
  RefMissingError,
  RunDetailsUnsupportedError,
  TokenUnavailableError,
  WorkflowPermissionError,
  workflowRefusedPath,
} from "./errors.ts";
export { CHECK_TEXT_LIMIT, COMMENT_BODY_LIMIT, DISPATCH_MAX_CHARS, DISPATCH_MAX_INPUTS, checkDispatchInputs, truncate, type DispatchInputs } from "./limits.ts";
export { hasMarker, isMarker, markerFor, withMarker } from "./marker.ts";
export { createLru } from "./lru.ts";
export type { Lru } from "./lru.ts";
export type { CommittedFile } from "./port.ts";
