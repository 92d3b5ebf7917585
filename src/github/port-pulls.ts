/**
 * The port's records of pull requests, their review threads and the check runs on their commits
 * (port.ts re-exports them).
 */
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
