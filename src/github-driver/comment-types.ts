/**
 * The types a `/naruto` comment's handlers share: the event, the context each command handler
 * gets, and the outcome it returns. In a file of their own so that handle-comment.ts and the
 * command files import them without importing each other.
 */
import type { Config } from "../config/index.ts";
import type { DriverDeps } from "./deps.ts";
import type { Author, Standing } from "./who-may-instruct.ts";

/** The parts of an `issue_comment` (created) payload naruto reads. */
export interface CommentEvent {
  /** `owner/name`. */
  readonly repo: string;
  readonly defaultBranch: string;
  /** `user`: the body's author (null: a deleted account; absent: not known, never trusted). */
  readonly issue: { readonly number: number; readonly pullRequest: boolean; readonly body: string | null; readonly user?: Author | null };
  readonly comment: { readonly id: number; readonly body: string; readonly user: Author };
}

/** A pull request's head, for missions started on it. */
export interface PullRequestHead {
  readonly ref: string;
  readonly sha: string;
  /** The head lives in another repository. */
  readonly fromFork: boolean;
}

export interface CommentDeps extends DriverDeps {
  /** Path of the config in the repository (`.github/naruto.yml`). */
  readonly configPath: string;
  /** Logins whose comments are naruto's own, ignored without a word. */
  readonly selfLogins: readonly string[];
  readonly pullRequestHead: (number: number) => Promise<PullRequestHead | null>;
}

export type CommentOutcome =
  | { readonly kind: "ignored"; readonly reason: string }
  | { readonly kind: "refused"; readonly reason: string }
  | { readonly kind: "replied"; readonly reason: string }
  | { readonly kind: "mission"; readonly mission: string; readonly created: boolean; readonly dispatched: readonly { item: string; attempt: number }[] };

/**
 * What the handlers of each command share. Everything a mission depends on is read once, when
 * the command is accepted: the default branch's head and its config, and the pull request's head.
 */
export interface CommentContext {
  readonly deps: CommentDeps;
  readonly event: CommentEvent;
  /** The config at `configCommit`; null when it is invalid (see `configErrors`). */
  readonly config: Config | null;
  readonly configErrors: string | null;
  /** The default branch's head when the command was accepted; null: the branch has no commit. */
  readonly configCommit: string | null;
  /** The pull request's head, pinned when the command was accepted. */
  readonly pullRequest: PullRequestHead | null;
  /** Whether another author (an issue body's) may instruct naruto, by the same rule as the command's. */
  standingOf(author: Author): Promise<Standing>;
  reply(body: string): Promise<void>;
}
