/**
 * The GitHub port (docs/architecture.md): the only way the App and the Action talk to GitHub, and
 * only what they use. One port works on one repository. Records are ours and small; nothing of
 * Octokit's types leaks through. Errors are the typed classes of `errors.ts`.
 *
 * Adapters: `createGitHub` (Octokit, `octokit-adapter.ts`) and the fake GitHub server in
 * `test/support/fake-github/`, which the same adapter talks to over real HTTP.
 */
import type { DispatchInputs } from "./limits.ts";
import type { RunArtifact, DispatchResult, WorkflowJob, WorkflowRun } from "./port-actions.ts";
import type { CommittedFile, Commit, Comparison, GitRef, TreeEntry, TreeLevel } from "./port-git.ts";
import type { Authors, Comment, IssueFacts, Reaction, RecentComment, UserPermission } from "./port-issues.ts";
import type { CheckConclusion, CheckOutput, CheckRun, CheckStatus, PullRequest, PullRequestInfo, ReviewThread } from "./port-pulls.ts";

export type { DispatchResult, RunArtifact, WorkflowJob, WorkflowRun, WorkflowStep } from "./port-actions.ts";
export type { ChangeStatus, ChangedFile, CommittedFile, Commit, Comparison, GitRef, TreeEntry, TreeLevel } from "./port-git.ts";
export { byAuthor } from "./port-issues.ts";
export type { Account, Authors, Comment, IssueFacts, Permission, Reaction, RecentComment, UserPermission } from "./port-issues.ts";
export { REVIEW_COMMENTS_PER_THREAD } from "./port-pulls.ts";
export type { CheckConclusion, CheckOutput, CheckRun, CheckStatus, PullRequest, PullRequestInfo, ReviewComment, ReviewThread } from "./port-pulls.ts";

export interface RepoRef {
  readonly owner: string;
  readonly repo: string;
}
export interface GitHubPort {
  readonly repo: RepoRef;

  /** A file's text at a ref (branch, tag or sha; default branch when absent); null when missing. */
  readFile(p: { path: string; ref?: string }): Promise<string | null>;
  /** Adds a reaction; adding the same reaction twice is harmless. */
  addReaction(p: { target: { comment: number } | { issue: number }; content: Reaction }): Promise<void>;
  /**
   * The repository's issue and pull request comments created since `since`, oldest first, at
   * most `limit` (default 300).
   */
  listRecentComments(p: { since: string; limit?: number }): Promise<RecentComment[]>;
  /** An issue or pull request; null when there is none by that number. */
  getIssue(p: { number: number }): Promise<IssueFacts | null>;
  /** The first comment on an issue or PR that starts with `marker` (by `author` — a login or one of several — when given). */
  findComment(p: { issue: number; marker: string; author?: Authors }): Promise<Comment | null>;
  /**
   * Creates or updates the comment found by `marker`; the body starts with the marker and is
   * cut to GitHub's limit with a note pointing at `link`. Never creates a second comment after
   * a failed attempt: it looks for the marker again first.
   */
  upsertComment(p: { issue: number; marker: string; body: string; link?: string; author?: Authors }): Promise<Comment>;
  /**
   * Opens an issue whose body starts with `marker`, unless an issue (by `author`, when given)
   * updated since `since` carries it already: a re-run or a retried request opens no second one.
   */
  openIssue(p: { title: string; body: string; marker: string; since: string; author?: Authors; link?: string }): Promise<{ number: number; created: boolean }>;
  /**
   * The role on the repository of the account that holds the login `user` now (`none` for one
   * that is no collaborator), and that account's numeric id (null: no such account). A login
   * can be renamed and then taken by another account: compare `id` with the id of the account
   * meant before trusting `role` (docs/architecture.md "Who may instruct").
   */
  permission(p: { user: string }): Promise<UserPermission>;

  /** Dispatches `workflow` (file name or id) on `ref`; inputs are checked against GitHub's limits first. */
  dispatchWorkflow(p: { workflow: string; ref: string; inputs: DispatchInputs }): Promise<DispatchResult>;
  getRun(p: { runId: number }): Promise<WorkflowRun>;
  /** Jobs of the run's latest attempt. */
  listJobs(p: { runId: number }): Promise<WorkflowJob[]>;
  /** Asks GitHub to cancel the run; false when it had already finished. */
  cancelRun(p: { runId: number }): Promise<boolean>;
  /** Every artifact of the run (each page of 100: one call per page). */
  listRunArtifacts(p: { runId: number }): Promise<RunArtifact[]>;
  /** An artifact's zip: one API call, then its signed blob link (not an API call). */
  downloadArtifact(p: { artifactId: number }): Promise<Uint8Array>;

  /** The open pull request from branch `head` (into `base`, when given). */
  findPullRequest(p: { head: string; base?: string }): Promise<PullRequest | null>;
  /** The open pull requests into `base` from this repository's own branches (each page of 100: one call per page). */
  listPullRequests(p: { base: string }): Promise<PullRequest[]>;
  /** Opens a pull request; returns the open one for the same head and base if it exists. */
  createPullRequest(p: { head: string; base: string; title: string; body: string; draft?: boolean; link?: string }): Promise<PullRequest>;
  updatePullRequest(p: { number: number; title?: string; body?: string; state?: "open" | "closed"; link?: string }): Promise<PullRequest>;
  /** A pull request by number with both sides; null when there is none (an issue is none). */
  getPullRequest(p: { number: number }): Promise<PullRequestInfo | null>;
  /**
   * Every review thread of a pull request, resolved or not, oldest first (GraphQL, paged);
   * `GraphqlError` (errors.ts) when GitHub answers with errors.
   */
  reviewThreads(p: { pull: number }): Promise<ReviewThread[]>;

  /**
   * Creates a check run on `headSha`. `externalId` names it, so that after a failed attempt the
   * run already created is found instead of creating a second one.
   */
  createCheckRun(p: {
    name: string;
    headSha: string;
    externalId: string;
    status: CheckStatus;
    conclusion?: CheckConclusion;
    output?: CheckOutput;
    detailsUrl?: string;
    link?: string;
  }): Promise<CheckRun>;
  updateCheckRun(p: {
    id: number;
    status?: CheckStatus;
    conclusion?: CheckConclusion;
    output?: CheckOutput;
    detailsUrl?: string;
    link?: string;
  }): Promise<CheckRun>;
  /** The latest check run of each name on a commit (what required status checks read), at most 100. */
  listCheckRuns(p: { ref: string }): Promise<CheckRun[]>;

  /** The sha a fully qualified ref points at; null when it does not exist. */
  getRef(ref: string): Promise<string | null>;
  /** Creates a ref; {@link RefExistsError} when it exists (pointing elsewhere). */
  createRef(p: { ref: string; sha: string }): Promise<void>;
  /**
   * Moves a ref. Without `force`, only a fast-forward: {@link NotFastForwardError} when `sha`
   * does not descend from the ref's current commit — the compare-and-swap of mission state.
   */
  updateRef(p: { ref: string; sha: string; force?: boolean }): Promise<void>;
  /** Deletes a ref; false when it did not exist. */
  deleteRef(ref: string): Promise<boolean>;
  /** Every ref whose name starts with `prefix` (e.g. `refs/heads/naruto/`). */
  listRefs(prefix: string): Promise<GitRef[]>;

  /** Stores bytes (a UTF-8 string, or a Buffer) as a blob; returns its sha. */
  createBlob(content: string | Uint8Array): Promise<string>;
  createTree(p: { entries: readonly TreeEntry[]; base?: string }): Promise<string>;
  createCommit(p: { message: string; tree: string; parents: readonly string[] }): Promise<string>;
  getCommit(sha: string): Promise<Commit>;
  /** A commit's files down to two folders deep, with their texts, in one request (GraphQL); null: no such commit. */
  readCommitFiles(commit: string): Promise<{ readonly tree: string; readonly files: readonly CommittedFile[] } | null>;
  /** One level of a commit's tree or of a tree (GraphQL), for what is too large to read at once; null: no such object. */
  readTreeLevel(oid: string): Promise<TreeLevel | null>;
  /** A blob's bytes as UTF-8 (any size up to GitHub's 100 MB). */
  readBlob(sha: string): Promise<string>;
  /** What changed from `base` to `head` (`base...head`, from their merge base). */
  compareCommits(p: { base: string; head: string }): Promise<Comparison>;
}
