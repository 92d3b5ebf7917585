/**
 * The objects a query walks: plain data with methods for the fields that take arguments or read
 * git (graphql-js calls a function-valued field with `(args, context, info)`). Access is checked
 * where GitHub checks it: the repository must be visible to the token, and an installation token
 * needs `pull_requests: read` for a pull request.
 */
import { hasAppPermission, userRole, type Principal } from "../auth.ts";
import { nodeId, type Urls } from "../shapes.ts";
import { headRefOf } from "../routes/pulls.ts";
import { findRepo, isoTime, type Account, type RepoState, type ReviewThreadState, type World } from "../state.ts";
import { connection, FieldError, type ConnectionArgs } from "./connection.ts";
import { objectOf } from "./git-objects.ts";

export interface GraphqlContext {
  readonly world: World;
  readonly principal: Principal;
  readonly urls: Urls;
}

const TYPENAME: Record<Account["type"], string> = { User: "User", Bot: "Bot", Organization: "Organization" };

function actor(urls: Urls, account: Account) {
  const url = account.type === "Bot" ? `${urls.web}/apps/${account.login.replace(/\[bot\]$/, "")}` : `${urls.web}/${account.login}`;
  return { __typename: TYPENAME[account.type], id: nodeId(account.type, account.id), login: account.login, url };
}

/** May the caller see the repository? GitHub answers NOT_FOUND, never FORBIDDEN, when not. */
function canSee(principal: Principal, repo: RepoState): boolean {
  switch (principal.kind) {
    case "anonymous":
      return !repo.private;
    case "app":
      return false;
    case "user":
      return userRole(repo, principal.account) !== "none";
    case "installation":
      return (
        principal.installation.account.login.toLowerCase() === repo.owner.login.toLowerCase() &&
        (principal.repositories === null || principal.repositories.some((n) => n.toLowerCase() === repo.name.toLowerCase()))
      );
  }
}

export function rootValue(ctx: GraphqlContext) {
  return {
    viewer: () => {
      if (ctx.principal.kind === "user" || ctx.principal.kind === "installation") return actor(ctx.urls, ctx.principal.account);
      throw new FieldError("FORBIDDEN", "This endpoint requires you to be authenticated.");
    },
    repository: (args: { owner: string; name: string }) => {
      const repo = findRepo(ctx.world, args.owner, args.name);
      if (repo === undefined || !canSee(ctx.principal, repo)) {
        throw new FieldError("NOT_FOUND", `Could not resolve to a Repository with the name '${args.owner}/${args.name}'.`);
      }
      return repository(ctx, repo);
    },
  };
}

function repository(ctx: GraphqlContext, repo: RepoState) {
  return {
    id: nodeId("Repository", repo.id),
    name: repo.name,
    nameWithOwner: repo.fullName,
    isPrivate: repo.private,
    owner: actor(ctx.urls, repo.owner),
    url: `${ctx.urls.web}/${repo.fullName}`,
    pullRequest: (args: { number: number }) => {
      const p = ctx.principal;
      if (p.kind === "installation" && !hasAppPermission(p.permissions, ["pull_requests:read"])) {
        throw new FieldError("FORBIDDEN", "Resource not accessible by integration");
      }
      const pull = repo.pulls.get(args.number);
      const issue = repo.issues.get(args.number);
      if (pull === undefined || issue === undefined) throw new FieldError("NOT_FOUND", `Could not resolve to a PullRequest with the number of ${args.number}.`);
      return pullRequest(ctx, repo, pull.number);
    },
    object: (args: { oid?: string | null; expression?: string | null }) => {
      const p = ctx.principal;
      if (p.kind === "installation" && !hasAppPermission(p.permissions, ["contents:read"])) {
        throw new FieldError("FORBIDDEN", "Resource not accessible by integration");
      }
      return objectOf(ctx.world.gits.get(repo.dir), args);
    },
  };
}

function pullRequest(ctx: GraphqlContext, repo: RepoState, number: number): Record<string, unknown> {
  const pull = repo.pulls.get(number);
  const issue = repo.issues.get(number);
  if (pull === undefined || issue === undefined) throw new Error(`pull request #${number} vanished`);
  const git = ctx.world.gits.get(repo.dir);
  const self: Record<string, unknown> = {
    id: nodeId("PullRequest", pull.id),
    number,
    title: issue.title,
    state: pull.mergedAt !== null ? "MERGED" : issue.state === "open" ? "OPEN" : "CLOSED",
    url: `${ctx.urls.web}/${repo.fullName}/pull/${number}`,
    headRefName: pull.headRef,
    // The live branch while the pull request is open, as the REST shape reads it.
    headRefOid: async () => {
      if (issue.state === "open") {
        const sha = await git.readRef(headRefOf(pull));
        if (sha !== null) pull.headSha = sha;
      }
      return pull.headSha;
    },
    baseRefName: pull.baseRef,
    baseRefOid: async () => (await git.readRef(`refs/heads/${pull.baseRef}`)) ?? "",
    isCrossRepository: pull.fork !== undefined,
    reviewThreads: (args: ConnectionArgs) => {
      const threads = repo.reviewThreads.filter((t) => t.pull === number).map((t) => reviewThread(ctx, repo, t, self));
      return connection(threads, args, "reviewThreads");
    },
  };
  return self;
}

function reviewThread(ctx: GraphqlContext, repo: RepoState, thread: ReviewThreadState, pull: Record<string, unknown>) {
  const web = `${ctx.urls.web}/${repo.fullName}/pull/${thread.pull}`;
  return {
    id: nodeId("PullRequestReviewThread", thread.id),
    isResolved: thread.isResolved,
    isOutdated: thread.isOutdated,
    isCollapsed: thread.isResolved,
    path: thread.path,
    line: thread.isOutdated ? null : thread.originalLine,
    originalLine: thread.originalLine,
    diffSide: "RIGHT",
    resolvedBy: thread.resolvedBy === null ? null : actor(ctx.urls, thread.resolvedBy),
    pullRequest: pull,
    comments: (args: ConnectionArgs) => {
      const comments = thread.comments.map((c) => ({
        id: nodeId("PullRequestReviewComment", c.id),
        databaseId: c.id,
        body: c.body,
        author: actor(ctx.urls, c.user),
        createdAt: isoTime(c.createdAt),
        path: thread.path,
        outdated: thread.isOutdated,
        url: `${web}#discussion_r${c.id}`,
      }));
      return connection(comments, args, "comments");
    },
  };
}
