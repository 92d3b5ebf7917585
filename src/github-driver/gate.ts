/**
 * Who may trigger naruto (docs/action.md): pure. Collaborator permission at least
 * `min_permission`, of the very account that wrote the comment (by numeric id: a login can be
 * renamed and taken by someone else); bots only by exact login in `allow_bots` (never by a
 * `[bot]` suffix); the app's own comments ignored; on a pull request from a fork, only a
 * maintainer (write or more) may make agents run, whatever `min_permission` says.
 */
import type { Permission } from "../config/index.ts";

/** GitHub's permission levels, weakest first (`none` for no access). */
export const PERMISSION_ORDER = ["none", "read", "triage", "write", "maintain", "admin"] as const;
export type RepoPermission = (typeof PERMISSION_ORDER)[number];

export interface TriggerFacts {
  /** The comment's author as the event names it: `id` is the account, `login` its name then. */
  readonly sender: { readonly login: string; readonly id: number; readonly type: string };
  /** The app's own bot login (`naruto[bot]`), or the Actions bot in the app-less mode. */
  readonly selfLogins: readonly string[];
  /** The permission on the repository of the account holding the sender's login now (collaborator-permission API). */
  readonly permission: RepoPermission;
  /** The numeric id of that account; null when the login names no account now. */
  readonly account: number | null;
  /** The comment is on a pull request whose head is in another repository. */
  readonly fromFork: boolean;
  readonly config: { readonly min_permission: Permission; readonly allow_bots: readonly string[] };
}

export type TriggerDecision =
  | { readonly allowed: true }
  /** `silent`: say nothing (the app's own comments); otherwise one polite reply. */
  | { readonly allowed: false; readonly silent: boolean; readonly reason: string };

export function mayTrigger(f: TriggerFacts): TriggerDecision {
  if (f.selfLogins.includes(f.sender.login)) return { allowed: false, silent: true, reason: "naruto's own comment" };
  if (f.sender.type === "Bot") {
    // A bot is let in by its exact login only; an app's bot has no collaborator permission.
    if (f.config.allow_bots.includes(f.sender.login)) return { allowed: true };
    return { allowed: false, silent: false, reason: `@${f.sender.login} is a bot that is not listed in \`allow_bots\` of .github/naruto.yml` };
  }
  if (f.account !== null && f.account !== f.sender.id) {
    return {
      allowed: false,
      silent: false,
      reason: `the login @${f.sender.login} now belongs to another account than the one that wrote this comment (renamed, and the name taken since); naruto checks the account, not the name: comment again from your account`,
    };
  }
  const needed: RepoPermission = f.fromFork && rank(f.config.min_permission) < rank("write") ? "write" : f.config.min_permission;
  if (rank(f.permission) < rank(needed)) {
    const why = f.fromFork && needed !== f.config.min_permission ? " (this pull request comes from a fork: agents run on its code only for maintainers)" : "";
    return { allowed: false, silent: false, reason: `@${f.sender.login} has ${f.permission} permission; naruto needs ${needed} or more${why}` };
  }
  return { allowed: true };
}

export function rank(p: RepoPermission): number {
  return PERMISSION_ORDER.indexOf(p);
}

/** The polite reply to a refused request. */
export function refusalText(reason: string): string {
  return `Sorry, naruto did not start: ${reason}. Nothing was changed.`;
}
