/**
 * The port's records of issues and comments, and of who may instruct (roles, accounts,
 * reactions): what a `/naruto` comment is read and answered with (port.ts re-exports them).
 */
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

/** Whose marker comments count: one login, or any of several (naruto's App and its workflow). */
export type Authors = string | readonly string[];

/** Whether `login` is one of `authors` (anyone when `authors` is undefined). */
export function byAuthor(authors: Authors | undefined, login: string | null | undefined): boolean {
  if (authors === undefined) return true;
  return typeof authors === "string" ? login === authors : login !== null && login !== undefined && authors.includes(login);
}
