/**
 * What a push, a pull request's activity or a new comment starts, as GitHub decides it: every
 * such event is recorded (`repo.events`, for the Actions simulator to run the repository's
 * `push`, `pull_request` and `issue_comment` workflows), and it starts workflow runs unless it
 * was made with a workflow job's `GITHUB_TOKEN` ("events triggered by the GITHUB_TOKEN, with the exception of
 * workflow_dispatch and repository_dispatch, will not create a new workflow run"). An App
 * installation token's events and a user's do start them.
 */
import { actorOf, type Principal } from "./auth.ts";
import type { CodeEventState, CommentEventState, RepoState, World } from "./state.ts";

export function startsWorkflows(principal: Principal): boolean {
  return !(principal.kind === "installation" && principal.workflowToken);
}

function record(world: World, repo: RepoState, event: Omit<CodeEventState, "id" | "at"> | Omit<CommentEventState, "id" | "at">): void {
  repo.events.push({ ...event, id: world.nextId(), at: world.now() });
}

/**
 * A branch moved (created or updated; deletions start nothing naruto models): a `push`, and a
 * `synchronize` of each open pull request whose head it is.
 */
export function recordPush(
  world: World,
  repo: RepoState,
  input: { ref: string; before: string | null; after: string; principal: Principal; forced?: boolean },
): void {
  if (!input.ref.startsWith("refs/heads/") || input.before === input.after) return;
  const actor = actorOf(input.principal, world);
  world.onBranchMove?.(repo, { ref: input.ref, before: input.before, after: input.after, forced: input.forced ?? false, actor });
  const starts = startsWorkflows(input.principal);
  record(world, repo, { event: "push", action: null, ref: input.ref, before: input.before, after: input.after, pull: null, actor, startsWorkflows: starts });
  const branch = input.ref.slice("refs/heads/".length);
  for (const pull of repo.pulls.values()) {
    if (pull.fork !== undefined || pull.headRef !== branch || repo.issues.get(pull.number)?.state !== "open") continue;
    pull.headSha = input.after;
    record(world, repo, {
      event: "pull_request",
      action: "synchronize",
      ref: input.ref,
      before: null,
      after: input.after,
      pull: pull.number,
      actor,
      startsWorkflows: starts,
    });
  }
}

/**
 * A branch deleted: GitHub sends the App a `push` with `deleted: true`; no workflow run starts
 * (a `delete` event would, which naruto's workflows do not use).
 */
export function recordDelete(world: World, repo: RepoState, input: { ref: string; before: string; principal: Principal }): void {
  if (!input.ref.startsWith("refs/heads/")) return;
  world.onBranchMove?.(repo, { ref: input.ref, before: input.before, after: null, forced: false, actor: actorOf(input.principal, world) });
}

/** A pull request opened, reopened or closed by `principal`, at its head `after`. */
export function recordPullRequest(
  world: World,
  repo: RepoState,
  input: { action: "opened" | "reopened" | "closed"; pull: number; headRef: string; after: string; principal: Principal },
): void {
  const actor = actorOf(input.principal, world);
  record(world, repo, {
    event: "pull_request",
    action: input.action,
    ref: `refs/heads/${input.headRef}`,
    before: null,
    after: input.after,
    pull: input.pull,
    actor,
    startsWorkflows: startsWorkflows(input.principal),
  });
}

/**
 * A comment created on an issue or a pull request by `principal`: an `issue_comment` event. A
 * comment a job made with its `GITHUB_TOKEN` starts no workflow, as its pushes do not (a
 * workflow's own comments would otherwise start it again); an App's or a user's does.
 */
export function recordComment(world: World, repo: RepoState, input: { comment: number; issue: number; principal: Principal }): void {
  const actor = actorOf(input.principal, world);
  record(world, repo, {
    event: "issue_comment",
    action: "created",
    comment: input.comment,
    issue: input.issue,
    actor,
    startsWorkflows: startsWorkflows(input.principal),
  });
}
