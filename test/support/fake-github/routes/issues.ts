/** Issues (list, create, read), issue comments (list, create, read, edit, delete) and reactions. */
import { actorOf, userRole } from "../auth.ts";
import { GitHubError, notFound, validationFailed } from "../errors.ts";
import { recordComment } from "../events.ts";
import { noContent, ok, paginate, type RepoContext, type RepoRoute } from "../route.ts";
import { commentShape, issueShape, reactionShape, repoApi } from "../shapes.ts";
import { roleAtLeast, type CommentState, type IssueState, type ReactionSubject } from "../state.ts";

/** GitHub's limit on issue and comment bodies, in characters. */
export const MAX_COMMENT_CHARS = 65_536;

const READ = { role: "read", app: ["issues:read", "pull_requests:read"] } as const;
const WRITE_COMMENT = { role: "read", app: ["issues:write", "pull_requests:write"] } as const;

function checkBody(body: unknown): string {
  const text = typeof body === "string" ? body : "";
  if (text.trim() === "") throw validationFailed([{ resource: "IssueComment", code: "missing_field", field: "body" }]);
  if ([...text].length > MAX_COMMENT_CHARS) {
    throw validationFailed([
      { resource: "IssueComment", code: "unprocessable", field: "data", message: `Body is too long (maximum is ${MAX_COMMENT_CHARS} characters)` },
    ]);
  }
  return text;
}

function issueOf(ctx: RepoContext) {
  const issue = ctx.repo.issues.get(Number(ctx.params["issue_number"]));
  if (issue === undefined) throw notFound();
  return issue;
}

function commentOf(ctx: RepoContext): CommentState {
  const comment = ctx.repo.comments.get(Number(ctx.params["comment_id"]));
  if (comment === undefined) throw notFound();
  return comment;
}

/** Authors edit their own comments; others need write access (or an app's issues permission). */
function checkMayEdit(ctx: RepoContext, comment: CommentState): void {
  const p = ctx.principal;
  if (p.kind === "installation") return;
  if (p.kind === "user" && (p.account.id === comment.user.id || roleAtLeast(userRole(ctx.repo, p.account), "write"))) return;
  throw new GitHubError(403, "Must have admin rights to Repository.");
}

function react(ctx: RepoContext, subject: ReactionSubject) {
  const user = actorOf(ctx.principal, ctx.world);
  const content = String(ctx.body["content"]);
  const key = (s: ReactionSubject) => (s.kind === "issue" ? `issue ${s.number}` : `comment ${s.id}`);
  const existing = ctx.repo.reactions.find((r) => key(r.subject) === key(subject) && r.user.id === user.id && r.content === content);
  if (existing !== undefined) return ok(reactionShape(ctx.urls, existing), 200);
  const reaction = { id: ctx.world.nextId(), subject, content, user, createdAt: ctx.world.now() };
  ctx.repo.reactions.push(reaction);
  return ok(reactionShape(ctx.urls, reaction), 201);
}

// Anyone who can read a repository (with issues on) may open an issue.
const WRITE_ISSUE = { role: "read", app: ["issues:write"] } as const;

/** `GET /issues` filters naruto uses: state, creator, since (updated at or after), sort by created/updated, direction. */
function listIssues(ctx: RepoContext) {
  const state = ctx.query.get("state") ?? "open";
  const creator = ctx.query.get("creator")?.toLowerCase() ?? null;
  const since = ctx.query.get("since");
  const sort = ctx.query.get("sort") === "updated" ? "updatedAt" : "createdAt";
  const descending = (ctx.query.get("direction") ?? "desc") !== "asc";
  if (since !== null && Number.isNaN(Date.parse(since))) throw validationFailed([{ resource: "Search", field: "since", code: "invalid" }]);
  return [...ctx.repo.issues.values()]
    .filter((i) => state === "all" || i.state === state)
    .filter((i) => creator === null || i.user.login.toLowerCase() === creator)
    .filter((i) => since === null || i.updatedAt >= Date.parse(since))
    .sort((a, b) => (descending ? b[sort] - a[sort] || b.number - a.number : a[sort] - b[sort] || a.number - b.number));
}

export const issueRoutes: readonly RepoRoute[] = [
  {
    // Pull requests are issues here too, as on GitHub (they carry a `pull_request` key).
    op: "GET /repos/{owner}/{repo}/issues",
    access: READ,
    handle: (ctx) =>
      paginate({ items: listIssues(ctx).map((i) => issueShape(ctx.urls, ctx.repo, i)), query: ctx.query, selfUrl: `${repoApi(ctx.urls, ctx.repo)}/issues` }),
  },
  {
    op: "POST /repos/{owner}/{repo}/issues",
    access: WRITE_ISSUE,
    handle: (ctx) => {
      const title = typeof ctx.body["title"] === "string" ? ctx.body["title"] : "";
      if (title.trim() === "") throw validationFailed([{ resource: "Issue", code: "missing_field", field: "title" }]);
      const body = ctx.body["body"] === undefined || ctx.body["body"] === null ? null : checkBody(ctx.body["body"]);
      const now = ctx.world.now();
      const issue: IssueState = {
        number: ctx.repo.nextNumber++,
        id: ctx.world.nextId(),
        title,
        body,
        user: actorOf(ctx.principal, ctx.world),
        state: "open",
        createdAt: now,
        updatedAt: now,
        closedAt: null,
        isPull: false,
      };
      ctx.repo.issues.set(issue.number, issue);
      return { status: 201, body: issueShape(ctx.urls, ctx.repo, issue), headers: { location: `${repoApi(ctx.urls, ctx.repo)}/issues/${issue.number}` } };
    },
  },
  {
    op: "GET /repos/{owner}/{repo}/issues/{issue_number}",
    access: READ,
    handle: (ctx) => ok(issueShape(ctx.urls, ctx.repo, issueOf(ctx))),
  },
  {
    op: "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
    access: READ,
    handle: (ctx) => {
      const issue = issueOf(ctx);
      const since = ctx.query.get("since");
      const items = [...ctx.repo.comments.values()]
        .filter((c) => c.issueNumber === issue.number && (since === null || c.updatedAt >= Date.parse(since)))
        .sort((a, b) => a.id - b.id)
        .map((c) => commentShape(ctx.urls, ctx.world, ctx.repo, c));
      return paginate({ items, query: ctx.query, selfUrl: `${repoApi(ctx.urls, ctx.repo)}/issues/${issue.number}/comments` });
    },
  },
  {
    // Every issue's and pull request's comments, as GitHub lists them: `since` (updated at or
    // after), `sort` created|updated, `direction` (ascending unless asked).
    op: "GET /repos/{owner}/{repo}/issues/comments",
    access: READ,
    handle: (ctx) => {
      const since = ctx.query.get("since");
      const sort = ctx.query.get("sort") === "updated" ? "updatedAt" : "createdAt";
      const descending = ctx.query.get("direction") === "desc";
      const items = [...ctx.repo.comments.values()]
        .filter((c) => since === null || c.updatedAt >= Date.parse(since))
        .sort((a, b) => (descending ? b[sort] - a[sort] || b.id - a.id : a[sort] - b[sort] || a.id - b.id))
        .map((c) => commentShape(ctx.urls, ctx.world, ctx.repo, c));
      return paginate({ items, query: ctx.query, selfUrl: `${repoApi(ctx.urls, ctx.repo)}/issues/comments` });
    },
  },
  {
    op: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
    access: WRITE_COMMENT,
    handle: (ctx) => {
      const issue = issueOf(ctx);
      const body = checkBody(ctx.body["body"]);
      const now = ctx.world.now();
      const comment: CommentState = {
        id: ctx.world.nextId(),
        issueNumber: issue.number,
        body,
        user: actorOf(ctx.principal, ctx.world),
        createdAt: now,
        updatedAt: now,
        viaApp: ctx.principal.kind === "installation",
      };
      ctx.repo.comments.set(comment.id, comment);
      issue.updatedAt = now;
      recordComment(ctx.world, ctx.repo, { comment: comment.id, issue: issue.number, principal: ctx.principal });
      return {
        status: 201,
        body: commentShape(ctx.urls, ctx.world, ctx.repo, comment),
        headers: { location: `${repoApi(ctx.urls, ctx.repo)}/issues/comments/${comment.id}` },
      };
    },
  },
  {
    op: "GET /repos/{owner}/{repo}/issues/comments/{comment_id}",
    access: READ,
    handle: (ctx) => ok(commentShape(ctx.urls, ctx.world, ctx.repo, commentOf(ctx))),
  },
  {
    op: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}",
    access: WRITE_COMMENT,
    handle: (ctx) => {
      const comment = commentOf(ctx);
      checkMayEdit(ctx, comment);
      comment.body = checkBody(ctx.body["body"]);
      comment.updatedAt = ctx.world.now();
      return ok(commentShape(ctx.urls, ctx.world, ctx.repo, comment));
    },
  },
  {
    op: "DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}",
    access: WRITE_COMMENT,
    handle: (ctx) => {
      const comment = commentOf(ctx);
      checkMayEdit(ctx, comment);
      ctx.repo.comments.delete(comment.id);
      return noContent();
    },
  },
  {
    op: "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
    access: WRITE_COMMENT,
    handle: (ctx) => react(ctx, { kind: "comment", id: commentOf(ctx).id }),
  },
  {
    op: "POST /repos/{owner}/{repo}/issues/{issue_number}/reactions",
    access: WRITE_COMMENT,
    handle: (ctx) => react(ctx, { kind: "issue", number: issueOf(ctx).number }),
  },
];
