/** Repository metadata, file contents and collaborator permission. */
import { posix } from "node:path";
import { userRole } from "../auth.ts";
import { notFound } from "../errors.ts";
import type { TreeEntry } from "../git-store.ts";
import { ok, type RepoContext, type RepoRoute } from "../route.ts";
import { repoApi, repoShape, rolePermissions, userShape } from "../shapes.ts";
import { findAccount, type Role } from "../state.ts";

const READ = { role: "read", app: ["metadata:read"] } as const;

/** GitHub wraps base64 content at 60 characters per line. */
function wrapBase64(content: Buffer): string {
  return (content.toString("base64").match(/.{1,60}/g) ?? []).map((line) => `${line}\n`).join("");
}

async function getContent(ctx: RepoContext) {
  const path = (ctx.params["path"] ?? "").replace(/^\/+|\/+$/g, "");
  const refName = ctx.query.get("ref") ?? ctx.repo.defaultBranch;
  const commit = await ctx.git.resolveCommit(refName);
  if (commit === null) {
    if ((await ctx.git.listRefs("refs/heads/")).length === 0) throw notFound("This repository is empty.");
    throw notFound(`No commit found for the ref ${refName}`);
  }
  const entry = path === "" ? null : await ctx.git.entryAt(commit, path);
  const base = `${repoApi(ctx.urls, ctx.repo)}/contents`;
  const describe = (e: { path: string; sha: string; type: string; mode?: string; size?: number }) => {
    const type = e.type === "tree" ? "dir" : e.type === "commit" ? "submodule" : e.mode === SYMLINK ? "symlink" : "file";
    const url = `${base}/${e.path}?ref=${encodeURIComponent(refName)}`;
    const html = `${ctx.urls.web}/${ctx.repo.fullName}/${type === "dir" ? "tree" : "blob"}/${refName}/${e.path}`;
    const git = `${repoApi(ctx.urls, ctx.repo)}/git/${type === "dir" || type === "submodule" ? "trees" : "blobs"}/${e.sha}`;
    return {
      type,
      name: e.path.split("/").at(-1) ?? e.path,
      path: e.path,
      sha: e.sha,
      size: e.size ?? 0,
      url,
      html_url: html,
      git_url: git,
      download_url: type === "file" ? `${ctx.urls.web}/raw/${ctx.repo.fullName}/${refName}/${e.path}` : null,
      _links: { self: url, git, html },
    };
  };
  const file = async (e: TreeEntry) => ok({ ...describe(e), content: wrapBase64(await ctx.git.readBlob(e.sha)), encoding: "base64" });
  if (entry === null) {
    if (path !== "") throw notFound();
  } else if (entry.type === "blob" && entry.mode === SYMLINK) {
    // GitHub answers with the file a link points to when that is a file of the repository.
    const target = (await ctx.git.readBlob(entry.sha)).toString("utf8");
    const resolved = posix.normalize(posix.join(posix.dirname(path), target));
    const pointed = target.startsWith("/") || resolved.startsWith("..") ? null : await ctx.git.entryAt(commit, resolved);
    if (pointed?.type === "blob" && pointed.mode !== SYMLINK) return file(pointed);
    return ok({ ...describe(entry), target });
  } else if (entry.type === "blob") {
    return file(entry);
  } else if (entry.type === "commit") {
    return ok({ ...describe(entry), submodule_git_url: await submoduleUrl(ctx, commit, path) });
  }
  const listing = await ctx.git.lsTree(entry?.sha ?? commit);
  return ok(listing.map((e) => describe({ ...e, path: path === "" ? e.path : `${path}/${e.path}` })));
}

const SYMLINK = "120000";

/** Where `.gitmodules` at `commit` says the submodule at `path` comes from (GitHub's `submodule_git_url`). */
async function submoduleUrl(ctx: RepoContext, commit: string, path: string): Promise<string | null> {
  const modules = await ctx.git.entryAt(commit, ".gitmodules");
  if (modules === null) return null;
  const text = (await ctx.git.readBlob(modules.sha)).toString("utf8");
  for (const section of text.split(/^\s*\[submodule\b/m).slice(1)) {
    const value = (key: string) => new RegExp(`^\\s*${key}\\s*=\\s*(.+?)\\s*$`, "m").exec(section)?.[1];
    if (value("path") === path) return value("url") ?? null;
  }
  return null;
}

/** The legacy `permission` field folds maintain into write and triage into read. */
const LEGACY: Record<Role, string> = { admin: "admin", maintain: "write", write: "write", triage: "read", read: "read", none: "none" };

export const repoRoutes: readonly RepoRoute[] = [
  {
    op: "GET /repos/{owner}/{repo}",
    access: READ,
    handle: (ctx) => ok(repoShape(ctx.urls, ctx.repo, ctx.principal.kind === "user" ? ctx.principal.account : undefined)),
  },
  { op: "GET /repos/{owner}/{repo}/contents/{path}", access: { role: "read", app: ["contents:read"] }, handle: getContent },
  {
    op: "GET /repos/{owner}/{repo}/collaborators/{username}/permission",
    access: READ,
    handle: (ctx) => {
      const account = findAccount(ctx.world, ctx.params["username"] ?? "");
      if (account === undefined || account.type === "Organization") throw notFound();
      const role = account.type === "Bot" ? "none" : userRole(ctx.repo, account);
      // `user` is GitHub's `collaborator`: the account with its role spelled out once more.
      return ok({ permission: LEGACY[role], role_name: role, user: { ...userShape(ctx.urls, account), permissions: rolePermissions(role), role_name: role } });
    },
  },
];
