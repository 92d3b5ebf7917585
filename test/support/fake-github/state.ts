import type { ArtifactState, BlobLinks, RuntimeGrant } from "./artifacts.ts";
import type { CommitObject, GitPool } from "./git-store.ts";

/**
 * What the fake GitHub holds besides git objects and refs (those live in real bare
 * repositories): accounts, tokens, issues, comments, pull requests, runs, check runs.
 * Plain data; the routes read and change it.
 */

/** Repository roles, weakest first, as the collaborator-permission API names them. */
export const ROLES = ["none", "read", "triage", "write", "maintain", "admin"] as const;
export type Role = (typeof ROLES)[number];

export function roleAtLeast(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** A GitHub App permission level, as in `permissions: { contents: "write" }`. */
export type PermissionLevel = "read" | "write" | "admin";
export type AppPermissions = Readonly<Record<string, PermissionLevel>>;

export function levelAtLeast(level: PermissionLevel | undefined, needed: PermissionLevel): boolean {
  const order: readonly (PermissionLevel | undefined)[] = [undefined, "read", "write", "admin"];
  return order.indexOf(level) >= order.indexOf(needed);
}

export interface Account {
  /** A user may rename the account (rename.ts): the id stays, the login changes. */
  login: string;
  readonly id: number;
  readonly type: "User" | "Organization" | "Bot";
}

export interface IssueState {
  readonly number: number;
  readonly id: number;
  title: string;
  body: string | null;
  readonly user: Account;
  state: "open" | "closed";
  readonly createdAt: number;
  updatedAt: number;
  closedAt: number | null;
  /** Pull requests are issues too (same number space, same comments). */
  readonly isPull: boolean;
}

export interface CommentState {
  readonly id: number;
  readonly issueNumber: number;
  body: string;
  readonly user: Account;
  readonly createdAt: number;
  updatedAt: number;
  /** Set when an installation token wrote it (GitHub's `performed_via_github_app`). */
  readonly viaApp: boolean;
}

export type ReactionSubject = { readonly kind: "issue"; readonly number: number } | { readonly kind: "comment"; readonly id: number };

export interface ReactionState {
  readonly id: number;
  readonly subject: ReactionSubject;
  readonly content: string;
  readonly user: Account;
  readonly createdAt: number;
}

export interface PullState {
  readonly number: number;
  readonly id: number;
  readonly headRef: string;
  /** The head when the pull request was last seen; the live branch wins while it exists. */
  headSha: string;
  baseRef: string;
  readonly draft: boolean;
  maintainerCanModify: boolean;
  mergedAt: number | null;
  /**
   * A pull request from a fork: the fork's owner (the fork is `<owner>/<this repository's name>`).
   * Its branch is not in this repository; GitHub keeps the head at `refs/pull/<number>/head`.
   */
  readonly fork?: { readonly owner: Account; readonly repoId: number };
}

/** One comment of a review thread (GraphQL `PullRequestReviewComment`). */
export interface ReviewCommentState {
  readonly id: number;
  readonly body: string;
  readonly user: Account;
  readonly createdAt: number;
}

/**
 * A review thread on a pull request (GraphQL `PullRequestReviewThread`): comments on one line
 * of one file. `line` is null once the thread is outdated (GitHub keeps `originalLine`).
 */
export interface ReviewThreadState {
  readonly id: number;
  readonly pull: number;
  readonly path: string;
  readonly originalLine: number;
  isOutdated: boolean;
  isResolved: boolean;
  resolvedBy: Account | null;
  readonly comments: ReviewCommentState[];
}

export type RunStatus = "queued" | "in_progress" | "completed" | "waiting" | "requested" | "pending";
export type RunConclusion = "success" | "failure" | "cancelled" | "skipped" | "timed_out" | "neutral" | "action_required" | null;

/** One step of a job as the runner reports it: `in_progress` when it starts, `completed` when it ends. */
export interface JobStepState {
  readonly number: number;
  readonly name: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  startedAt: number | null;
  completedAt: number | null;
}

export interface JobState {
  readonly id: number;
  readonly runId: number;
  readonly name: string;
  status: RunStatus;
  conclusion: RunConclusion;
  /** When the job was queued (GitHub's `created_at`; also its `started_at` until a runner takes it). */
  readonly createdAt: number;
  /** When a runner took it; null while it waits (queued) or when it never ran. */
  startedAt: number | null;
  completedAt: number | null;
  readonly runAttempt: number;
  /** The job's `runs-on` labels. */
  labels: readonly string[];
  /** The runner that took it; null while queued. */
  runnerName: string | null;
  readonly steps: JobStepState[];
}

export interface RunState {
  readonly id: number;
  readonly workflowId: number;
  readonly workflowPath: string;
  readonly workflowName: string;
  /** The run's `run-name` as the runner evaluated it; null: the workflow's name (GitHub's default). */
  displayTitle: string | null;
  readonly headBranch: string;
  readonly headSha: string;
  /** The commit at `headSha`, read when the run was created (a run's `head_commit`). */
  readonly headCommit: CommitObject;
  readonly event: string;
  status: RunStatus;
  conclusion: RunConclusion;
  readonly runNumber: number;
  readonly runAttempt: number;
  readonly createdAt: number;
  updatedAt: number;
  readonly actor: Account;
  readonly jobs: JobState[];
}

export interface CheckRunState {
  readonly id: number;
  name: string;
  readonly headSha: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  externalId: string | null;
  detailsUrl: string | null;
  startedAt: number | null;
  completedAt: number | null;
  output: { title: string | null; summary: string | null; text: string | null; annotationsCount: number };
  readonly appId: number;
}

/** The GitHub Actions app: its check runs are the jobs of workflow runs. */
export const GITHUB_ACTIONS_APP_ID = 15368;

/** One `workflow_dispatch` request, for the Actions simulator to run. */
export interface DispatchRecord {
  readonly owner: string;
  readonly repo: string;
  /** The workflow file path, e.g. `.github/workflows/naruto.yml`. */
  readonly workflow: string;
  readonly workflowId: number;
  readonly ref: string;
  /** The commit `ref` pointed to when the dispatch was accepted. */
  readonly sha: string;
  readonly inputs: Readonly<Record<string, string>>;
  readonly runId: number;
  /** Login of the user or bot that dispatched. */
  readonly actor: string;
  readonly at: number;
}

/**
 * Something done to a repository that may start workflow runs: a branch pushed (git or REST ref
 * writes), a pull request opened, reopened, or its head branch pushed (`synchronize`), a comment
 * made on an issue or pull request. Events made with a workflow job's `GITHUB_TOKEN` start none
 * (`startsWorkflows` false); those made with an App installation token or a user's token do.
 */
export type RepoEventState = CodeEventState | CommentEventState;

interface EventCommon {
  readonly id: number;
  readonly actor: Account;
  readonly startsWorkflows: boolean;
  readonly at: number;
}

export interface CodeEventState extends EventCommon {
  readonly event: "push" | "pull_request";
  /** `opened`, `reopened`, `synchronize`, `closed` for `pull_request`; null for `push`. */
  readonly action: string | null;
  /** `refs/heads/<branch>`: the pushed branch, or the pull request's head branch. */
  readonly ref: string;
  /** The branch's commit before a push (null: created), the pull request's base for `pull_request`. */
  readonly before: string | null;
  /** The branch's (or the pull request's head) commit after. */
  readonly after: string;
  readonly pull: number | null;
}

/** An `issue_comment` `created` (GitHub runs its workflows from the default branch). */
export interface CommentEventState extends EventCommon {
  readonly event: "issue_comment";
  readonly action: "created";
  readonly comment: number;
  /** The issue's or pull request's number. */
  readonly issue: number;
}

export interface RepoState {
  readonly id: number;
  readonly owner: Account;
  readonly name: string;
  readonly fullName: string;
  readonly private: boolean;
  defaultBranch: string;
  /** The bare repository on disk. */
  readonly dir: string;
  readonly collaborators: Map<string, Role>;
  readonly issues: Map<number, IssueState>;
  nextNumber: number;
  readonly pulls: Map<number, PullState>;
  /** Review threads of every pull request, oldest first. */
  readonly reviewThreads: ReviewThreadState[];
  readonly comments: Map<number, CommentState>;
  readonly reactions: ReactionState[];
  readonly runs: Map<number, RunState>;
  nextRunNumber: number;
  readonly checkRuns: Map<number, CheckRunState>;
  /** Pushes and pull request activity, oldest first (events.ts). */
  readonly events: RepoEventState[];
  /** Branch protection's required status checks (check run names) per base branch. */
  readonly requiredChecks: Map<string, readonly string[]>;
  /** Workflow run artifacts by id (artifacts.ts). */
  readonly artifacts: Map<number, ArtifactState>;
}

export interface InstallationState {
  readonly id: number;
  readonly account: Account;
  permissions: AppPermissions;
}

export type Credential =
  | { readonly kind: "user"; readonly login: string }
  | {
      readonly kind: "installation";
      readonly installationId: number;
      /** The bot the token acts as, e.g. `naruto[bot]` or `github-actions[bot]`. */
      readonly bot: Account;
      readonly permissions: AppPermissions;
      /** Repository names the token is limited to; null for all of the installation's. */
      readonly repositories: readonly string[] | null;
      readonly expiresAt: number;
      /** A workflow job's `GITHUB_TOKEN`: what it does starts no workflow run (but dispatches). */
      readonly workflowToken?: boolean;
    };

export interface AppState {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly bot: Account;
  permissions: AppPermissions;
  readonly privateKey: string;
  readonly publicKey: string;
}

export interface World {
  /** One git reader per repository (see git-store.ts); closed with the server. */
  readonly gits: GitPool;
  /** Milliseconds since the epoch; tests move it with `advanceClock` instead of sleeping. */
  now(): number;
  /** Moves the fake's clock forward (token expiry) without waiting. */
  advanceClock(ms: number): void;
  nextId(): number;
  readonly root: string;
  readonly accounts: Map<string, Account>;
  readonly tokens: Map<string, Credential>;
  /** The role each user was given for repositories created later (`addUser` before `createRepo`). */
  readonly defaultRoles: Map<string, { readonly role: Role; readonly repos: readonly string[] | null }>;
  /** Keyed by lower-cased `owner/name`: GitHub matches owner and name case-insensitively. */
  readonly repos: Map<string, RepoState>;
  readonly app: AppState;
  readonly installations: Map<number, InstallationState>;
  readonly dispatches: DispatchRecord[];
  installationTokenLifetimeMs: number;
  installationTokenLength: number;
  /** GraphQL answers longer than this (JSON bytes) are GitHub's 502 for a query it could not finish; null: any size. */
  graphqlAnswerLimit: number | null;
  /**
   * Plays a GitHub Enterprise Server of this version (`3.20`); null: github.com. Servers before
   * 3.21 do not know the dispatch field `return_run_details` and answer it with 400.
   */
  ghesVersion: string | null;
  /** Each running job's `ACTIONS_RUNTIME_TOKEN` and what it may do (artifacts.ts). */
  readonly runtimeTokens: Map<string, RuntimeGrant>;
  /** Signed download links of artifacts. */
  readonly blobs: BlobLinks;
  /** Where a branch's move goes as the App's `push` webhook (index.ts `sendPushWebhooks`); null: nowhere. */
  onBranchMove: ((repo: RepoState, move: BranchMove) => void) | null;
}

/** A branch created, moved or deleted (`after` null), as a `push` webhook reports it. */
export interface BranchMove {
  readonly ref: string;
  readonly before: string | null;
  readonly after: string | null;
  readonly forced: boolean;
  readonly actor: Account;
}

/** Whether the server knows `return_run_details` (github.com since 2026-02-19; GHES from 3.21). */
export function knowsRunDetails(world: World): boolean {
  if (world.ghesVersion === null) return true;
  const [major = 0, minor = 0] = world.ghesVersion.split(".").map(Number);
  return major > 3 || (major === 3 && minor >= 21);
}

export function findRepo(world: World, owner: string, name: string): RepoState | undefined {
  return world.repos.get(`${owner}/${name}`.toLowerCase());
}

export function findAccount(world: World, login: string): Account | undefined {
  return world.accounts.get(login.toLowerCase());
}

/** GitHub's timestamp form: ISO 8601 in UTC, whole seconds. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
