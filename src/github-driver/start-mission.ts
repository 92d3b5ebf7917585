/**
 * `/naruto <task>` and `/naruto plan <task>`: the mission is requested in the state (its id comes
 * from the comment, so a redelivery finds it), its queue branch is made at the base, and the plan
 * run is dispatched; the tracking comment follows from the stored mission.
 */
import { RefExistsError, WorkflowPermissionError } from "../github/index.ts";
import type { GitHubPort } from "../github/index.ts";
import type { Mission, PlanSource, QuotedText } from "../mission/index.ts";
import type { MissionEvent } from "../mission/index.ts";
import { applyEvent } from "../mission/index.ts";
import { carryOut } from "./carry-out.ts";
import type { CommentContext, CommentOutcome } from "./comment-types.ts";
import { missionIdFor } from "./mission-id.ts";
import { missionSettings } from "./settings.ts";
import { requestOf, type RequestInput } from "./who-may-instruct.ts";
import { refuseWorkflowChange } from "./workflow-refusal.ts";
import { refuseLoginOnRunner } from "./runner-login.ts";
import type { Config } from "../config/index.ts";

export async function startMission(ctx: CommentContext, command: { kind: "run" | "plan"; task: string; plan: string | null }): Promise<CommentOutcome> {
  const { deps, event } = ctx;
  if (ctx.pullRequest?.fromFork) {
    // The mission would build on the fork's branch, and its result could only be proposed there.
    const reason =
      "naruto cannot start a mission on a pull request from a fork (its branch lives in another repository, where naruto cannot propose the result): comment on an issue, or push the branch to this repository";
    await ctx.reply(reason);
    return { kind: "replied", reason };
  }
  const id = missionIdFor(event.repo, event.comment.id);
  const existing = await deps.store.load(id);
  const base = existing?.mission.base ?? baseOf(ctx);
  if (base === null) {
    const reason = `the branch ${event.defaultBranch} has no commit to start from`;
    await ctx.reply(reason);
    return { kind: "replied", reason };
  }
  // The mission's settings come from the default branch's config: reviewed code, as its jobs read it.
  if (ctx.config === null) return invalidConfig(ctx);
  const refused = await refuseLoginOnRunner(ctx, ctx.config);
  if (refused !== null) return refused;
  const request = requestOf({ task: command.task, sender: event.comment.user.login, commentPlan: command.plan, issue: await issueOf(ctx) });
  return requestMission(ctx, {
    id,
    base,
    task: request.task,
    config: ctx.config,
    approval: command.kind === "plan",
    planText: request.planText,
    planSource: request.planSource,
    quoted: request.quoted,
  });
}

/** The reply when the default branch's config is invalid: nothing starts. */
export async function invalidConfig(ctx: CommentContext): Promise<CommentOutcome> {
  await ctx.reply(`naruto did not start: the config is invalid.\n\n\`\`\`\n${ctx.configErrors ?? "(no details)"}\n\`\`\``);
  return { kind: "replied", reason: "invalid config" };
}

/**
 * The body of the issue (or pull request) the command is on, and whether its author may
 * instruct naruto: by the same rule as the command's author, for that very account (an unknown
 * or deleted author may not). Null when there is no body to speak of.
 */
async function issueOf(ctx: CommentContext): Promise<RequestInput["issue"]> {
  const { event } = ctx;
  const body = event.issue.body;
  if (body === null || body.trim() === "") return null;
  const author = event.issue.user ?? null;
  const known = { number: event.issue.number, kind: event.issue.pullRequest ? "pull_request" : "issue", body, author: author?.login ?? null } as const;
  if (author === null) return { ...known, role: null, mayInstruct: false };
  // The command's author passed the gate a moment ago.
  if (author.id === event.comment.user.id) return { ...known, role: null, mayInstruct: true };
  const standing = await ctx.standingOf(author);
  return { ...known, role: standing.role, mayInstruct: standing.decision.allowed };
}

/** What a comment asks a new mission to be (see the `requested` event). */
export interface MissionRequest {
  readonly id: string;
  readonly base: { readonly ref: string; readonly commit: string };
  readonly task: string;
  /** The default branch's config as read at acceptance (`ctx.configCommit`): the mission's settings come from it. */
  readonly config: Config;
  /** Wait for `/naruto approve` after planning (`/naruto plan`); the config may ask for it too. */
  readonly approval: boolean;
  readonly planText: string | null;
  /** Whose text the plan is (null: a review has none). */
  readonly planSource: PlanSource | null;
  /** Texts quoted into the task as data only. */
  readonly quoted?: readonly QuotedText[];
  /** A review-only mission of the commits from `base.commit` to `head` (`/naruto review`). */
  readonly review?: { readonly head: string };
}

/**
 * Requests the mission in the state (its id comes from the comment: a redelivery finds it and
 * repeats nothing), makes its queue branch at the queue head, and carries out what the engine
 * asks (a plan or review run) and the tracking comment. When GitHub refuses the queue branch for
 * workflow files, the user is told why and the request is undone (workflow-refusal.ts).
 */
export async function requestMission(ctx: CommentContext, input: MissionRequest): Promise<CommentOutcome> {
  const { deps, event } = ctx;
  const requested: MissionEvent = {
    type: "requested",
    at: deps.now().toISOString(),
    id: input.id,
    task: input.task,
    source: {
      kind: "github",
      repo: event.repo,
      issue: event.issue.number,
      comment_id: event.comment.id,
      actor: event.comment.user.login,
      actor_id: event.comment.user.id,
    },
    base: input.base,
    queue_branch: `naruto/${input.id}`,
    settings: missionSettings(input.config, { approval: input.approval, strict: false }),
    plan_text: input.planText,
    plan_source: input.planSource,
    quoted: [...(input.quoted ?? [])],
    config_commit: ctx.configCommit,
    pull_request: ctx.pullRequest === null ? null : { number: event.issue.number, head: ctx.pullRequest.sha },
    ...(input.review ? { review: { head: input.review.head } } : {}),
  };
  const result = await applyEvent(deps.store, input.id, requested);
  try {
    await ensureQueueBranch(deps.github, result.mission, { reset: !result.duplicate || result.mission.status === "planning" });
  } catch (error) {
    if (!(error instanceof WorkflowPermissionError)) throw error;
    return refuseWorkflowChange(ctx, { mission: result.mission, error });
  }
  // A redelivery (duplicate) dispatches nothing again; a mission stuck in planning is the sweep's.
  // Nor does it publish: the writer that made the mission does, and two replicas handling one
  // delivery at once would each find no tracking comment and each post one. Should that writer
  // have died first, the next run event, or the sweep's, renders the comment from the state.
  const done = await carryOut(deps, { mission: result.mission, commands: result.duplicate ? [] : result.commands }, { publish: !result.duplicate });
  return { kind: "mission", mission: input.id, created: !result.duplicate, dispatched: done.dispatched };
}

/** Where a new mission starts: the pull request's pinned head, or the default branch's head as read at acceptance. */
function baseOf(ctx: CommentContext): { ref: string; commit: string } | null {
  if (ctx.pullRequest) return { ref: ctx.pullRequest.ref, commit: ctx.pullRequest.sha };
  return ctx.configCommit === null ? null : { ref: ctx.event.defaultBranch, commit: ctx.configCommit };
}

/**
 * Creates `naruto/<mission>` at the queue head when it is missing. With `reset` (a new mission):
 * an existing branch can only be left by an earlier try at this same mission, and is put back at
 * the stored base. Without (the publish job), an existing branch is left alone: it may hold
 * queue commits whose `integrated` event a stopped run did not record yet.
 */
export async function ensureQueueBranch(github: GitHubPort, mission: Mission, options: { reset: boolean }): Promise<void> {
  const ref = `refs/heads/${mission.queue.branch}`;
  try {
    await github.createRef({ ref, sha: mission.queue.head });
  } catch (error) {
    // Whether GitHub weighs a new ref's workflow files before it finds the ref exists is not
    // documented: once the default branch changed `.github/workflows/` mid-mission, creating the
    // queue branch at its lagging head is refused (403) whether it exists or not. Only a
    // refusal of a branch that is not there is one.
    const exists = error instanceof RefExistsError || (error instanceof WorkflowPermissionError && (await github.getRef(ref)) !== null);
    if (!exists) throw error;
    if (!options.reset || mission.queue.head !== mission.base.commit) return;
    if ((await github.getRef(ref)) !== mission.base.commit) await github.updateRef({ ref, sha: mission.base.commit, force: true });
  }
}
