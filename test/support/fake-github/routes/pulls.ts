/** Pull requests between branches of one repository: list, create, read, update, files. */
import { recordPullRequest } from "../events.ts";
import { actorOf, userRole } from "../auth.ts";
import { GitHubError, notFound, validationFailed } from "../errors.ts";
import { ok, paginate, type RepoContext, type RepoRoute } from "../route.ts";
import { repoApi } from "../shapes.ts";
import { liveHead, pullShape, pullSimpleShape } from "../shapes-pulls.ts";
import { roleAtLeast, type IssueState, type PullState, type RepoState } from "../state.ts";
import { fileShape } from "./compare.ts";

const READ = { role: "read", app: ["pull_requests:read"] } as const;
const WRITE = { role: "read", app: ["pull_requests:write"] } as const;

export { headRefOf, pullShape, type PullShapeContext } from "../shapes-pulls.ts";

function pullOf(ctx: RepoContext): { pull: PullState; issue: IssueState } {
  const pull = ctx.repo.pulls.get(Number(ctx.params["pull_number"]));
  const issue = pull === undefined ? undefined : ctx.repo.issues.get(pull.number);
  if (pull === undefined || issue === undefined) throw notFound();
  return { pull, issue };
}

/** GitHub's 422 when a branch pair cannot have a(nother) pull request. */
async function checkPair(ctx: RepoContext, head: string, base: string, except?: number): Promise<void> {
  const open = [...ctx.repo.pulls.values()].find(
    (p) => p.number !== except && p.headRef === head && p.baseRef === base && ctx.repo.issues.get(p.number)?.state === "open",
  );
  if (open !== undefined) {
    throw validationFailed([{ resource: "PullRequest", code: "custom", message: `A pull request already exists for ${ctx.repo.owner.login}:${head}.` }]);
  }
  const baseSha = await ctx.git.readRef(`refs/heads/${base}`);
  if (baseSha === null) throw validationFailed([{ resource: "PullRequest", field: "base", code: "invalid" }]);
  const headSha = await ctx.git.readRef(`refs/heads/${head}`);
  if (headSha === null) throw validationFailed([{ resource: "PullRequest", field: "head", code: "invalid" }]);
  const mergeBase = await ctx.git.mergeBase(baseSha, headSha);
  if (mergeBase === null || (await ctx.git.countCommits(`${mergeBase}..${headSha}`)) === 0) {
    throw validationFailed([{ resource: "PullRequest", code: "custom", message: `No commits between ${base} and ${head}` }]);
  }
}

const queues = new WeakMap<RepoState, Promise<unknown>>();

/**
 * Pull request writes check the branch pair and then insert, across awaits: they run one at a
 * time per repository, so two concurrent creates for one head cannot both succeed.
 */
function serialized<T>(repo: RepoState, work: () => Promise<T>): Promise<T> {
  const next = (queues.get(repo) ?? Promise.resolve()).then(work, work);
  queues.set(
    repo,
    next.catch(() => undefined),
  );
  return next;
}

function checkMayEdit(ctx: RepoContext, issue: IssueState): void {
  const p = ctx.principal;
  if (p.kind === "installation") return;
  if (p.kind === "user" && (p.account.id === issue.user.id || roleAtLeast(userRole(ctx.repo, p.account), "write"))) return;
  throw new GitHubError(403, "Must have admin rights to Repository.");
}

export const pullRoutes: readonly RepoRoute[] = [
  {
    op: "GET /repos/{owner}/{repo}/pulls",
    access: READ,
    handle: async (ctx) => {
      const state = ctx.query.get("state") ?? "open";
      // Without `owner:`, GitHub ignores `head` altogether and lists every pull request.
      const head = ctx.query.get("head");
      const [headOwner, headRef] = head?.includes(":") === true ? [head.slice(0, head.indexOf(":")), head.slice(head.indexOf(":") + 1)] : [null, null];
      const base = ctx.query.get("base");
      const pulls = [...ctx.repo.pulls.values()]
        .filter((p) => state === "all" || ctx.repo.issues.get(p.number)?.state === state)
        .filter((p) => headOwner === null || (headOwner.toLowerCase() === ctx.repo.owner.login.toLowerCase() && p.headRef === headRef))
        .filter((p) => base === null || p.baseRef === base)
        .sort((a, b) => (ctx.query.get("direction") === "asc" ? a.number - b.number : b.number - a.number));
      const items = await Promise.all(pulls.map((p) => pullSimpleShape(ctx, p)));
      return paginate({ items, query: ctx.query, selfUrl: `${repoApi(ctx.urls, ctx.repo)}/pulls` });
    },
  },
  {
    op: "POST /repos/{owner}/{repo}/pulls",
    access: WRITE,
    handle: (ctx) =>
      serialized(ctx.repo, async () => {
        const rawHead = String(ctx.body["head"]);
        const colon = rawHead.indexOf(":");
        if (colon !== -1 && rawHead.slice(0, colon).toLowerCase() !== ctx.repo.owner.login.toLowerCase()) {
          throw validationFailed([{ resource: "PullRequest", field: "head", code: "invalid" }]);
        }
        const head = colon === -1 ? rawHead : rawHead.slice(colon + 1);
        const base = String(ctx.body["base"]);
        const title = ctx.body["title"];
        if (typeof title !== "string" || title.trim() === "") {
          throw validationFailed([{ resource: "PullRequest", field: "title", code: "missing_field" }]);
        }
        await checkPair(ctx, head, base);
        const now = ctx.world.now();
        const number = ctx.repo.nextNumber++;
        const body = typeof ctx.body["body"] === "string" ? ctx.body["body"] : null;
        const user = actorOf(ctx.principal, ctx.world);
        ctx.repo.issues.set(number, {
          number,
          id: ctx.world.nextId(),
          title,
          body,
          user,
          state: "open",
          createdAt: now,
          updatedAt: now,
          closedAt: null,
          isPull: true,
        });
        const pull: PullState = {
          number,
          id: ctx.world.nextId(),
          headRef: head,
          headSha: (await ctx.git.readRef(`refs/heads/${head}`)) ?? "",
          baseRef: base,
          draft: ctx.body["draft"] === true,
          maintainerCanModify: ctx.body["maintainer_can_modify"] !== false,
          mergedAt: null,
        };
        ctx.repo.pulls.set(number, pull);
        recordPullRequest(ctx.world, ctx.repo, { action: "opened", pull: number, headRef: head, after: pull.headSha, principal: ctx.principal });
        return { status: 201, body: await pullShape(ctx, pull), headers: { location: `${repoApi(ctx.urls, ctx.repo)}/pulls/${number}` } };
      }),
  },
  {
    op: "GET /repos/{owner}/{repo}/pulls/{pull_number}",
    access: READ,
    handle: async (ctx) => ok(await pullShape(ctx, pullOf(ctx).pull)),
  },
  {
    op: "PATCH /repos/{owner}/{repo}/pulls/{pull_number}",
    access: WRITE,
    handle: (ctx) =>
      serialized(ctx.repo, async () => {
        const { pull, issue } = pullOf(ctx);
        checkMayEdit(ctx, issue);
        const b = ctx.body;
        const reopening = b["state"] === "open" && issue.state === "closed";
        const newBase = typeof b["base"] === "string" ? b["base"] : pull.baseRef;
        if (reopening || newBase !== pull.baseRef) await checkPair(ctx, pull.headRef, newBase, pull.number);
        const now = ctx.world.now();
        if (typeof b["title"] === "string") issue.title = b["title"];
        if (typeof b["body"] === "string") issue.body = b["body"];
        if (b["state"] === "open" || b["state"] === "closed") {
          issue.closedAt = b["state"] === "closed" ? (issue.state === "closed" ? issue.closedAt : now) : null;
          issue.state = b["state"];
        }
        if (typeof b["maintainer_can_modify"] === "boolean") pull.maintainerCanModify = b["maintainer_can_modify"];
        pull.baseRef = newBase;
        issue.updatedAt = now;
        if (reopening) {
          pull.headSha = (await ctx.git.readRef(`refs/heads/${pull.headRef}`)) ?? pull.headSha;
          recordPullRequest(ctx.world, ctx.repo, {
            action: "reopened",
            pull: pull.number,
            headRef: pull.headRef,
            after: pull.headSha,
            principal: ctx.principal,
          });
        } else if (b["state"] === "closed" && issue.closedAt === now) {
          recordPullRequest(ctx.world, ctx.repo, { action: "closed", pull: pull.number, headRef: pull.headRef, after: pull.headSha, principal: ctx.principal });
        }
        return ok(await pullShape(ctx, pull));
      }),
  },
  {
    op: "GET /repos/{owner}/{repo}/pulls/{pull_number}/files",
    access: READ,
    handle: async (ctx) => {
      const { pull } = pullOf(ctx);
      const head = await liveHead(ctx, pull);
      const base = (await ctx.git.readRef(`refs/heads/${pull.baseRef}`)) ?? head;
      const mergeBase = (await ctx.git.mergeBase(base, head)) ?? base;
      const files = (await ctx.git.diff(mergeBase, head)).slice(0, 3000).map((c) => fileShape(ctx, head, c));
      return paginate({ items: files, query: ctx.query, selfUrl: `${repoApi(ctx.urls, ctx.repo)}/pulls/${pull.number}/files` });
    },
  },
];
