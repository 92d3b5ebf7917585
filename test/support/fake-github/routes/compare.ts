/** `GET /compare/{base}...{head}` and the changed-file shape it shares with pull request files. */
import { notFound } from "../errors.ts";
import type { FileChange } from "../git-store.ts";
import { ok, type RepoContext, type RepoRoute } from "../route.ts";
import { nodeId, repoApi } from "../shapes.ts";

export function fileShape(ctx: RepoContext, head: string, change: FileChange): Record<string, unknown> {
  const web = `${ctx.urls.web}/${ctx.repo.fullName}`;
  return {
    sha: change.sha,
    filename: change.filename,
    status: change.status,
    additions: change.additions,
    deletions: change.deletions,
    changes: change.additions + change.deletions,
    blob_url: `${web}/blob/${head}/${change.filename}`,
    raw_url: `${web}/raw/${head}/${change.filename}`,
    contents_url: `${repoApi(ctx.urls, ctx.repo)}/contents/${change.filename}?ref=${head}`,
  };
}

/** The REST (not Git Data) commit shape: `{ sha, commit: { … }, parents }`. */
async function restCommit(ctx: RepoContext, sha: string): Promise<Record<string, unknown>> {
  const commit = await ctx.git.readCommit(sha);
  if (commit === null) throw notFound();
  const api = repoApi(ctx.urls, ctx.repo);
  return {
    sha,
    node_id: nodeId("Commit", sha),
    url: `${api}/commits/${sha}`,
    html_url: `${ctx.urls.web}/${ctx.repo.fullName}/commit/${sha}`,
    comments_url: `${api}/commits/${sha}/comments`,
    commit: {
      author: commit.author,
      committer: commit.committer,
      message: commit.message,
      comment_count: 0,
      tree: { sha: commit.tree, url: `${api}/git/trees/${commit.tree}` },
      url: `${api}/git/commits/${sha}`,
    },
    author: null,
    committer: null,
    parents: commit.parents.map((p) => ({ sha: p, url: `${api}/commits/${p}`, html_url: `${ctx.urls.web}/${ctx.repo.fullName}/commit/${p}` })),
  };
}

/** Resolves `branch`, `tag`, `sha` or `owner:branch` (same repository only) to a commit. */
async function resolveSide(ctx: RepoContext, side: string): Promise<string> {
  const colon = side.indexOf(":");
  if (colon !== -1 && side.slice(0, colon).toLowerCase() !== ctx.repo.owner.login.toLowerCase()) throw notFound();
  const sha = await ctx.git.resolveCommit(colon === -1 ? side : side.slice(colon + 1));
  if (sha === null) throw notFound();
  return sha;
}

export const compareRoutes: readonly RepoRoute[] = [
  {
    op: "GET /repos/{owner}/{repo}/compare/{basehead}",
    access: { role: "read", app: ["contents:read"] } as const,
    handle: async (ctx) => {
      const basehead = ctx.params["basehead"] ?? "";
      const split = basehead.indexOf("...");
      if (split === -1) throw notFound();
      const [baseName, headName] = [basehead.slice(0, split), basehead.slice(split + 3)];
      const base = await resolveSide(ctx, baseName);
      const head = await resolveSide(ctx, headName);
      const mergeBase = await ctx.git.mergeBase(base, head);
      if (mergeBase === null) throw notFound(`No common ancestor between ${baseName} and ${headName}.`);
      const ahead = await ctx.git.countCommits(`${mergeBase}..${head}`);
      const behind = await ctx.git.countCommits(`${mergeBase}..${base}`);
      const status = ahead === 0 && behind === 0 ? "identical" : behind === 0 ? "ahead" : ahead === 0 ? "behind" : "diverged";
      const commits = await ctx.git.revList(`${mergeBase}..${head}`);
      const web = `${ctx.urls.web}/${ctx.repo.fullName}`;
      return ok({
        url: `${repoApi(ctx.urls, ctx.repo)}/compare/${basehead}`,
        html_url: `${web}/compare/${basehead}`,
        permalink_url: `${web}/compare/${base}...${head}`,
        diff_url: `${web}/compare/${basehead}.diff`,
        patch_url: `${web}/compare/${basehead}.patch`,
        base_commit: await restCommit(ctx, base),
        merge_base_commit: await restCommit(ctx, mergeBase),
        status,
        ahead_by: ahead,
        behind_by: behind,
        total_commits: ahead,
        commits: await Promise.all(commits.slice(0, 250).map((sha) => restCommit(ctx, sha))),
        files: (await ctx.git.diff(mergeBase, head)).slice(0, 300).map((c) => fileShape(ctx, head, c)),
      });
    },
  },
];
