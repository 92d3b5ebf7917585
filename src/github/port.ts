/**
 * The GitHub port (docs/architecture.md): the only way the App and the Action talk to GitHub, and
 * only what they use. One port works on one repository. Records are ours and small; nothing of
 * Octokit's types leaks through. Errors are the typed classes of `errors.ts`.
 *
 * Adapters: `createGitHub` (Octokit, `octokit-adapter.ts`) and the fake GitHub server in
 * `test/support/fake-github/`, which the same adapter talks to over real HTTP.
 */
import type { DispatchInputs } from "./limits.ts";
import type { CommittedFile, Commit, Comparison, GitRef, TreeEntry, TreeLevel } from "./port-git.ts";

export type { ChangeStatus, ChangedFile, CommittedFile, Commit, Comparison, GitRef, TreeEntry, TreeLevel } from "./port-git.ts";

export interface RepoRef {
  readonly owner: string;
  readonly repo: string;
}

/** Repository roles as the collaborator-permission API names them, weakest last. */
export type Permission = "admin" | "maintain" | "write" | "triage" | "read" | "none";

/** A login's role and the numeric id of the account the login names (see `permission`). */
export interface UserPermission {
  readonly role: Permission;
  readonly id: number | null;
}

export type Reaction = "+1" | "-1" | "laugh" | "confused" | "heart" | "hooray" | "rocket" | "eyes";

export interface Comment {
  readonly id: number;
  readonly body: string;
  readonly url: string;
  /** Login of the author (for the app, `name[bot]`). */
  readonly author: string | null;
}

/** An account as GitHub writes it: the login may change (renames), the numeric id never does. */
export interface Account {
  readonly login: string;
  readonly id: number;
  readonly type: string;
}

/** A comment on an issue or pull request, as the repository's list of comments gives it. */
export interface RecentComment {
  readonly id: number;
  /** The number of its issue or pull request. */
  readonly issue: number;
  readonly body: string;
  /** Null for a deleted account ("ghost"). */
  readonly user: Account | null;
  readonly createdAt: string;
  /** 👀 reactions on it, whoever gave them. */
  readonly eyes: number;
}

/** An issue or pull request, as far as a `/naruto` comment on it needs. */
export interface IssueFacts {
  readonly number: number;
  readonly pullRequest: boolean;
  readonly body: string | null;
  readonly user: Account | null;
}

export interface WorkflowRun {
  readonly id: number;
  readonly status: string | null;
  readonly conclusion: string | null;
  readonly url: string;
  readonly headSha: string;
  readonly attempt: number;
}

export interface WorkflowJob {
  readonly id: number;
  readonly name: string;
  readonly status: string;
  readonly conclusion: string | null;
  readonly url: string | null;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  /** The run attempt the job belongs to (GitHub's re-runs make new attempts). */
  readonly runAttempt: number;
  /** Its steps as GitHub shows them: the ones started or done so far, with their times. */
  readonly steps: readonly WorkflowStep[];
}

export interface WorkflowStep {
  readonly number: number;
  readonly name: string;
  readonly status: string;
  readonly conclusion: string | null;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
}

/** One artifact of a workflow run, as the REST API lists it. */
export interface RunArtifact {
  readonly id: number;
  readonly name: string;
  readonly sizeInBytes: number;
  /** `sha256:<hex>` of its zip as upload-artifact v4 reported it; null for older uploads. */
  readonly digest: string | null;
  readonly createdAt: string | null;
  readonly expired: boolean;
  /** The run it belongs to, as GitHub says. */
  readonly runId: number | null;
}

export interface PullRequest {
  readonly number: number;
  readonly url: string;
  readonly state: "open" | "closed";
  readonly head: string;
  readonly base: string;
  readonly headSha: string;
  readonly title: string;
}

/** A pull request as `/naruto` on it needs it: both sides, and where the head lives. */
export interface PullRequestInfo {
  readonly number: number;
  readonly url: string;
  readonly title: string;
  readonly state: "open" | "closed";
  readonly head: {
    readonly ref: string;
    readonly sha: string;
    /** `owner/name` of the head's repository; null when that repository was deleted. */
    readonly repo: string | null;
  };
  readonly base: { readonly ref: string; readonly sha: string };
  /** The head lives in another repository (a fork, or a deleted one). */
  readonly fromFork: boolean;
}

/** One comment of a review thread. */
export interface ReviewComment {
  /** Login of the author; null for a deleted account ("ghost"). */
  readonly author: string | null;
  readonly body: string;
}

/** A review thread on a pull request: comments on one line (or the whole) of one file. */
export interface ReviewThread {
  readonly id: string;
  readonly path: string;
  /** The line in the pull request's current diff; null when outdated or on the whole file. */
  readonly line: number | null;
  /** The line the thread was started on. */
  readonly originalLine: number | null;
  readonly isResolved: boolean;
  /** The lines it was on changed since (a later push). */
  readonly isOutdated: boolean;
  /** The first comments, oldest first (at most {@link REVIEW_COMMENTS_PER_THREAD}). */
  readonly comments: readonly ReviewComment[];
  /** How many comments the thread has in all. */
  readonly commentCount: number;
}

/** Comments read per review thread; a longer thread says how many more it has. */
export const REVIEW_COMMENTS_PER_THREAD = 50;

export type CheckStatus = "queued" | "in_progress" | "completed";
export type CheckConclusion = "success" | "failure" | "neutral" | "cancelled" | "skipped" | "timed_out" | "action_required";

export interface CheckOutput {
  readonly title: string;
  /** Cut to 65,535 characters with a note and `link` before sending. */
  readonly summary: string;
  readonly text?: string;
}

export interface CheckRun {
  readonly id: number;
  readonly name: string;
  readonly headSha: string;
  readonly status: string;
  readonly conclusion: string | null;
  readonly url: string | null;
  readonly externalId: string | null;
  /** The slug of the app that made it (`github-actions` for workflow jobs and `GITHUB_TOKEN`'s); null when not given. */
  readonly app?: string | null;
}

export interface DispatchResult {
  /** The run started, when GitHub returns it (`return_run_details`); null on older servers. */
  readonly runId: number | null;
  readonly runUrl: string | null;
}

/** Whose marker comments count: one login, or any of several (naruto's App and its workflow). */
export type Authors = string | readonly string[];

/** Whether `login` is one of `authors` (anyone when `authors` is undefined). */
export function byAuthor(authors: Authors | undefined, login: string | null | undefined): boolean {
  if (authors === undefined) return true;
  return typeof authors === "string" ? login === authors : login !== null && login !== undefined && authors.includes(login);
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
