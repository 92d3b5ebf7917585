/**
 * Git references. Moves are compare-and-swap on the real bare repository
 * (`git update-ref REF NEW OLD`), so concurrent PATCHes and pushes cannot both win.
 */
import { recordDelete, recordPush } from "../events.ts";
import { hasAppPermission } from "../auth.ts";
import { notFound, unprocessable } from "../errors.ts";
import { ZERO_SHA } from "../git-store.ts";
import { noContent, ok, type RepoContext, type RepoRoute } from "../route.ts";
import { nodeId, repoApi } from "../shapes.ts";
import { workflowRefusal } from "../workflow-rule.ts";

const READ = { role: "read", app: ["contents:read"] } as const;
const WRITE = { role: "write", app: ["contents:write"] } as const;

export function refShape(ctx: RepoContext, ref: string, sha: string, type: string): Record<string, unknown> {
  const api = repoApi(ctx.urls, ctx.repo);
  return {
    ref,
    node_id: nodeId("Ref", `${ctx.repo.id}:${ref}`),
    url: `${api}/git/${ref}`,
    object: { type, sha, url: `${api}/git/${type}s/${sha}` },
  };
}

/** git's ref name rules (git check-ref-format), without starting git. */
export function validRefName(ref: string): boolean {
  if (/[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\/|\/$|\.$|\.lock$|^@$/.test(ref)) return false;
  return ref.split("/").every((part) => part !== "" && !part.startsWith(".") && !part.endsWith(".lock"));
}

/** A GitHub App needs the `workflows` permission to change files under .github/workflows/ (workflow-rule.ts). */
export async function checkWorkflowChange(ctx: RepoContext, from: string | null, to: string): Promise<void> {
  if (ctx.principal.kind !== "installation" || hasAppPermission(ctx.principal.permissions, ["workflows:write"])) return;
  await workflowRefusal(ctx.git, { from, to, defaultBranch: ctx.repo.defaultBranch });
}

async function commitSha(ctx: RepoContext, sha: unknown): Promise<string> {
  const value = String(sha);
  if ((await ctx.git.objectType(value)) === null) throw unprocessable("Object does not exist");
  return value;
}

async function existingRef(ctx: RepoContext): Promise<{ full: string; sha: string }> {
  const full = `refs/${ctx.params["ref"] ?? ""}`;
  const sha = await ctx.git.readRef(full);
  if (sha === null) throw unprocessable("Reference does not exist");
  return { full, sha };
}

export const gitRefRoutes: readonly RepoRoute[] = [
  {
    op: "GET /repos/{owner}/{repo}/git/ref/{ref}",
    access: READ,
    handle: async (ctx) => {
      const full = `refs/${ctx.params["ref"] ?? ""}`;
      const sha = await ctx.git.readRef(full);
      if (sha === null) throw notFound();
      return ok(refShape(ctx, full, sha, (await ctx.git.objectType(sha)) ?? "commit"));
    },
  },
  {
    op: "GET /repos/{owner}/{repo}/git/matching-refs/{ref}",
    access: READ,
    handle: async (ctx) => {
      const refs = await ctx.git.listRefs(`refs/${ctx.params["ref"] ?? ""}`);
      return ok(refs.map((r) => refShape(ctx, r.ref, r.sha, r.type)));
    },
  },
  {
    op: "POST /repos/{owner}/{repo}/git/refs",
    access: WRITE,
    handle: async (ctx) => {
      const ref = String(ctx.body["ref"]);
      if (!/^refs\/[^/]+\/.+/.test(ref)) throw unprocessable("Reference name must start with 'refs/' and have at least two slashes.");
      if (!validRefName(ref)) throw unprocessable(`${ref} is not a valid ref name.`);
      const sha = await commitSha(ctx, ctx.body["sha"]);
      await checkWorkflowChange(ctx, null, sha);
      if (!(await ctx.git.updateRef(ref, sha, ZERO_SHA))) throw unprocessable("Reference already exists");
      recordPush(ctx.world, ctx.repo, { ref, before: null, after: sha, principal: ctx.principal });
      return {
        ...ok(refShape(ctx, ref, sha, (await ctx.git.objectType(sha)) ?? "commit"), 201),
        headers: { location: `${repoApi(ctx.urls, ctx.repo)}/git/${ref}` },
      };
    },
  },
  {
    op: "PATCH /repos/{owner}/{repo}/git/refs/{ref}",
    access: WRITE,
    handle: async (ctx) => {
      const { full, sha: current } = await existingRef(ctx);
      const next = await commitSha(ctx, ctx.body["sha"]);
      await checkWorkflowChange(ctx, current, next);
      if (ctx.body["force"] === true) {
        await ctx.git.updateRef(full, next, null);
      } else if (!(await ctx.git.isAncestor(current, next)) || !(await ctx.git.updateRef(full, next, current))) {
        // Either not a descendant, or the ref moved since it was read: both are GitHub's 422.
        throw unprocessable("Update is not a fast forward");
      }
      recordPush(ctx.world, ctx.repo, { ref: full, before: current, after: next, principal: ctx.principal, forced: ctx.body["force"] === true });
      return ok(refShape(ctx, full, next, (await ctx.git.objectType(next)) ?? "commit"));
    },
  },
  {
    op: "DELETE /repos/{owner}/{repo}/git/refs/{ref}",
    access: WRITE,
    handle: async (ctx) => {
      const { full, sha } = await existingRef(ctx);
      if (!(await ctx.git.deleteRef(full))) throw unprocessable("Reference does not exist");
      recordDelete(ctx.world, ctx.repo, { ref: full, before: sha, principal: ctx.principal });
      return noContent();
    },
  },
];
