/** Repository metadata, file contents and collaborator permission. */
import { userRole } from "../auth.ts";
import { notFound } from "../errors.ts";
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
  const describe = (e: { path: string; sha: string; type: string; size?: number }) => {
    const type = e.type === "tree" ? "dir" : e.type === "commit" ? "submodule" : "file";
    const url = `${base}/${e.path}?ref=${encodeURIComponent(refName)}`;
    const html = `${ctx.urls.web}/${ctx.repo.fullName}/${type === "dir" ? "tree" : "blob"}/${refName}/${e.path}`;
    const git = `${repoApi(ctx.urls, ctx.repo)}/git/${type === "dir" ? "trees" : "blobs"}/${e.sha}`;
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
  if (entry === null) {
    if (path !== "") throw notFound();
  } else if (entry.type === "blob") {
    const content = await ctx.git.readBlob(entry.sha);
    return ok({ ...describe(entry), content: wrapBase64(content), encoding: "base64" });
  } else if (entry.type === "commit") {
    return ok(describe(entry));
  }
  const listing = await ctx.git.lsTree(entry?.sha ?? commit);
  return ok(listing.map((e) => describe({ ...e, path: path === "" ? e.path : `${path}/${e.path}` })));
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
