/**
 * Who is asking, and may they: tokens (`Authorization: token X` / `Bearer X`, or Basic with
 * the token as password for git), the repository role of a user, and the permissions of an
 * installation token.
 */
import { looksLikeJwt, verifyAppJwt } from "./app-auth.ts";
import { badCredentials, GitHubError, notAccessibleByIntegration, notFound } from "./errors.ts";
import {
  findAccount,
  levelAtLeast,
  roleAtLeast,
  type Account,
  type AppPermissions,
  type InstallationState,
  type PermissionLevel,
  type RepoState,
  type Role,
  type World,
} from "./state.ts";

export type Principal =
  | { readonly kind: "anonymous" }
  | { readonly kind: "user"; readonly account: Account }
  | {
      readonly kind: "installation";
      readonly account: Account;
      readonly installation: InstallationState;
      readonly permissions: AppPermissions;
      readonly repositories: readonly string[] | null;
      /** A workflow job's `GITHUB_TOKEN`. */
      readonly workflowToken: boolean;
    }
  | { readonly kind: "app" };

/** The login requests are recorded under (null when anonymous). */
export function principalName(principal: Principal, world: World): string | null {
  if (principal.kind === "anonymous") return null;
  if (principal.kind === "app") return `app:${world.app.slug}`;
  return principal.account.login;
}

export function principalForToken(world: World, token: string): Principal {
  if (looksLikeJwt(token)) {
    verifyAppJwt(world, token);
    return { kind: "app" };
  }
  const credential = world.tokens.get(token);
  if (credential === undefined) throw badCredentials();
  if (credential.kind === "user") {
    const account = findAccount(world, credential.login);
    if (account === undefined) throw badCredentials();
    return { kind: "user", account };
  }
  const installation = world.installations.get(credential.installationId);
  if (installation === undefined || world.now() >= credential.expiresAt) throw badCredentials();
  return {
    kind: "installation",
    account: credential.bot,
    installation,
    permissions: credential.permissions,
    repositories: credential.repositories,
    workflowToken: credential.workflowToken === true,
  };
}

/** Reads `Authorization: token X`, `Bearer X` or `Basic base64(user:X)`. */
export function authenticate(world: World, header: string | undefined): Principal {
  if (header === undefined || header.trim() === "") return { kind: "anonymous" };
  const [scheme = "", value = ""] = header.trim().split(/\s+/, 2);
  switch (scheme.toLowerCase()) {
    case "token":
    case "bearer":
      return principalForToken(world, value);
    case "basic": {
      const decoded = Buffer.from(value, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      return principalForToken(world, colon === -1 ? decoded : decoded.slice(colon + 1));
    }
    default:
      throw badCredentials();
  }
}

/** The repository role of a user (admins of the owning account count as admins). */
export function userRole(repo: RepoState, account: Account): Role {
  if (account.login.toLowerCase() === repo.owner.login.toLowerCase()) return "admin";
  const role = repo.collaborators.get(account.login.toLowerCase()) ?? "none";
  return role === "none" && !repo.private ? "read" : role;
}

/** What an operation needs: a role for users, one of some app permissions for installations. */
export interface Access {
  readonly role: Role;
  /** Alternatives such as `["issues:write", "pull_requests:write"]`; any one is enough. */
  readonly app: readonly `${string}:${PermissionLevel}`[];
}

function installationCovers(principal: Extract<Principal, { kind: "installation" }>, repo: RepoState): boolean {
  if (principal.installation.account.login.toLowerCase() !== repo.owner.login.toLowerCase()) return false;
  return principal.repositories === null || principal.repositories.some((n) => n.toLowerCase() === repo.name.toLowerCase());
}

export function hasAppPermission(permissions: AppPermissions, wanted: readonly string[]): boolean {
  return wanted.some((w) => {
    const [name = "", level = "read"] = w.split(":");
    return levelAtLeast(permissions[name], level as PermissionLevel);
  });
}

/**
 * Throws GitHub's answer when `principal` may not do `access` on `repo`: 404 when it cannot
 * see the repository (GitHub hides private repositories), 401 for an anonymous write, 403 for
 * too weak a role, "Resource not accessible by integration" for a missing app permission.
 */
export function checkRepoAccess(principal: Principal, repo: RepoState, access: Access): void {
  switch (principal.kind) {
    case "app":
      throw new GitHubError(401, "A JSON web token could not be decoded");
    case "anonymous":
      if (repo.private) throw notFound();
      if (access.role !== "read") throw new GitHubError(401, "Requires authentication");
      return;
    case "user": {
      const role = userRole(repo, principal.account);
      if (role === "none") throw notFound();
      if (!roleAtLeast(role, access.role)) throw new GitHubError(403, "Must have admin rights to Repository.");
      return;
    }
    case "installation":
      if (!installationCovers(principal, repo)) throw notFound();
      if (!hasAppPermission(principal.permissions, access.app)) throw notAccessibleByIntegration();
      return;
  }
}

/** The account an action is recorded under (bots for installation tokens). */
export function actorOf(principal: Principal, world: World): Account {
  if (principal.kind === "user" || principal.kind === "installation") return principal.account;
  return world.app.bot;
}
