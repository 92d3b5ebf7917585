/**
 * The types a `/naruto` comment's handlers share: the event, the context each command handler
 * gets, and the outcome it returns. In a file of their own so that handle-comment.ts and the
 * command files import them without importing each other.
 */
import type { Config } from "../config/index.ts";
import type { DriverDeps } from "./deps.ts";

/** The parts of an `issue_comment` (created) payload naruto reads. */
export interface CommentEvent {
  /** `owner/name`. */
  readonly repo: string;
  readonly defaultBranch: string;
  readonly issue: { readonly number: number; readonly pullRequest: boolean; readonly body: string | null };
  readonly comment: { readonly id: number; readonly body: string; readonly user: { readonly login: string; readonly type: string } };
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

/** What the handlers of each command share. */
export interface CommentContext {
  readonly deps: CommentDeps;
  readonly event: CommentEvent;
  /** The config on the default branch, or the defaults' when it is invalid (see `configErrors`). */
  readonly config: Config | null;
  readonly configErrors: string | null;
  readonly pullRequest: PullRequestHead | null;
  reply(body: string): Promise<void>;
}
