/** Git Data API objects: blobs, trees and commits, written with git plumbing. */
import { actorOf } from "../auth.ts";
import { notFound, unprocessable } from "../errors.ts";
import type { CommitObject, Person, TreeEntry } from "../git-store.ts";
import { createCommit, createTree, GitWriteError, type NewTreeEntry } from "../git-write.ts";
import { ok, type RepoContext, type RepoRoute } from "../route.ts";
import { nodeId, repoApi } from "../shapes.ts";
import { isoTime } from "../state.ts";

const READ = { role: "read", app: ["contents:read"] } as const;
const WRITE = { role: "write", app: ["contents:write"] } as const;

function treeShape(ctx: RepoContext, sha: string, entries: readonly TreeEntry[]): Record<string, unknown> {
  const api = repoApi(ctx.urls, ctx.repo);
  return {
    sha,
    url: `${api}/git/trees/${sha}`,
    tree: entries.map((e) => ({
      path: e.path,
      mode: e.mode,
      type: e.type,
      sha: e.sha,
      ...(e.size !== undefined ? { size: e.size } : {}),
      ...(e.type === "commit" ? {} : { url: `${api}/git/${e.type}s/${e.sha}` }),
    })),
    truncated: false,
  };
}

export function commitShape(ctx: RepoContext, commit: CommitObject): Record<string, unknown> {
  const api = repoApi(ctx.urls, ctx.repo);
  return {
    sha: commit.sha,
    node_id: nodeId("Commit", commit.sha),
    url: `${api}/git/commits/${commit.sha}`,
    html_url: `${ctx.urls.web}/${ctx.repo.fullName}/commit/${commit.sha}`,
    author: commit.author,
    committer: commit.committer,
    message: commit.message,
    tree: { sha: commit.tree, url: `${api}/git/trees/${commit.tree}` },
    parents: commit.parents.map((p) => ({ sha: p, url: `${api}/git/commits/${p}`, html_url: `${ctx.urls.web}/${ctx.repo.fullName}/commit/${p}` })),
    verification: { verified: false, reason: "unsigned", signature: null, payload: null, verified_at: null },
  };
}

/** GitWriteError is a client mistake: GitHub answers 422. */
async function writing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof GitWriteError) throw unprocessable(error.message);
    throw error;
  }
}

function person(ctx: RepoContext, given: unknown, fallback: Person): Person {
  if (typeof given !== "object" || given === null) return fallback;
  const p = given as { name?: string; email?: string; date?: string };
  return { name: p.name ?? fallback.name, email: p.email ?? fallback.email, date: p.date ?? isoTime(ctx.world.now()) };
}

export const gitObjectRoutes: readonly RepoRoute[] = [
  {
    op: "POST /repos/{owner}/{repo}/git/blobs",
    access: WRITE,
    handle: async (ctx) => {
      const encoding = ctx.body["encoding"] ?? "utf-8";
      if (encoding !== "utf-8" && encoding !== "base64") throw unprocessable(`encoding must be "utf-8" or "base64"`);
      const sha = await ctx.git.writeBlob(Buffer.from(String(ctx.body["content"]), encoding === "base64" ? "base64" : "utf8"));
      return ok({ sha, url: `${repoApi(ctx.urls, ctx.repo)}/git/blobs/${sha}` }, 201);
    },
  },
  {
    op: "GET /repos/{owner}/{repo}/git/blobs/{file_sha}",
    access: READ,
    handle: async (ctx) => {
      const sha = ctx.params["file_sha"] ?? "";
      if ((await ctx.git.objectType(sha)) !== "blob") throw notFound();
      const content = await ctx.git.readBlob(sha);
      return ok({
        sha,
        node_id: nodeId("Blob", sha),
        size: content.length,
        url: `${repoApi(ctx.urls, ctx.repo)}/git/blobs/${sha}`,
        content: (content.toString("base64").match(/.{1,60}/g) ?? []).map((l) => `${l}\n`).join(""),
        encoding: "base64",
      });
    },
  },
  {
    op: "POST /repos/{owner}/{repo}/git/trees",
    access: WRITE,
    handle: async (ctx) => {
      const baseTree = ctx.body["base_tree"];
      const sha = await writing(() =>
        createTree(ctx.git, {
          ...(typeof baseTree === "string" ? { baseTree } : {}),
          entries: ctx.body["tree"] as NewTreeEntry[],
        }),
      );
      return ok(treeShape(ctx, sha, await ctx.git.lsTree(sha)), 201);
    },
  },
  {
    op: "GET /repos/{owner}/{repo}/git/trees/{tree_sha}",
    access: READ,
    handle: async (ctx) => {
      const given = ctx.params["tree_sha"] ?? "";
      const type = await ctx.git.objectType(given);
      const commit = type === "tree" ? null : await ctx.git.resolveCommit(given);
      const tree = type === "tree" ? given : commit === null ? null : ((await ctx.git.readCommit(commit))?.tree ?? null);
      if (tree === null) throw notFound();
      // GitHub recurses for ANY value of `recursive`, even "false" or "0".
      return ok(treeShape(ctx, tree, await ctx.git.lsTree(tree, { recursive: ctx.query.has("recursive") })));
    },
  },
  {
    op: "POST /repos/{owner}/{repo}/git/commits",
    access: WRITE,
    handle: async (ctx) => {
      const actor = actorOf(ctx.principal, ctx.world);
      const fallback = { name: actor.login, email: `${actor.id}+${actor.login}@users.noreply.github.com`, date: isoTime(ctx.world.now()) };
      const author = person(ctx, ctx.body["author"], fallback);
      const committer = person(ctx, ctx.body["committer"], author);
      const sha = await writing(() =>
        createCommit(ctx.git, {
          tree: String(ctx.body["tree"]),
          parents: (ctx.body["parents"] as string[] | undefined) ?? [],
          message: String(ctx.body["message"]),
          author,
          committer,
        }),
      );
      const commit = await ctx.git.readCommit(sha);
      if (commit === null) throw new Error(`the commit just written is missing: ${sha}`);
      return { ...ok(commitShape(ctx, commit), 201), headers: { location: `${repoApi(ctx.urls, ctx.repo)}/git/commits/${sha}` } };
    },
  },
  {
    op: "GET /repos/{owner}/{repo}/git/commits/{commit_sha}",
    access: READ,
    handle: async (ctx) => {
      const commit = await ctx.git.readCommit(ctx.params["commit_sha"] ?? "");
      if (commit === null) throw notFound();
      return ok(commitShape(ctx, commit));
    },
  },
];
