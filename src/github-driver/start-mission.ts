/**
 * `/naruto <task>` and `/naruto plan <task>`: the mission is requested in the state (its id comes
 * from the comment, so a redelivery finds it), its queue branch is made at the base, and the plan
 * run is dispatched; the tracking comment follows from the stored mission.
 */
import { sanitizeUntrusted } from "../agent/sanitize-untrusted.ts";
import { RefExistsError } from "../github/errors.ts";
import type { GitHubPort } from "../github/port.ts";
import type { Mission } from "../mission/document.ts";
import type { MissionEvent } from "../mission/events.ts";
import { applyEvent } from "../mission/store.ts";
import { checkPlan, findFencedPlan } from "../plan/index.ts";
import { carryOut } from "./carry-out.ts";
import type { CommentContext, CommentOutcome } from "./comment-types.ts";
import { missionIdFor } from "./mission-id.ts";
import { missionSettings, readConfigAt } from "./settings.ts";
import { formatConfigErrors, type Config } from "../config/index.ts";

export async function startMission(ctx: CommentContext, command: { kind: "run" | "plan"; task: string; plan: string | null }): Promise<CommentOutcome> {
  const { deps, event } = ctx;
  const { github, store } = deps;
  if (ctx.pullRequest?.fromFork) {
    // The mission would build on the fork's branch, and its result could only be proposed there.
    const reason = "naruto cannot start a mission on a pull request from a fork (its branch lives in another repository, where naruto cannot propose the result): comment on an issue, or push the branch to this repository";
    await ctx.reply(reason);
    return { kind: "replied", reason };
  }
  const id = missionIdFor(event.repo, event.comment.id);
  const existing = await store.load(id);
  const base = existing?.mission.base ?? (await baseOf(github, event.defaultBranch, ctx.pullRequest));
  if (base === null) {
    const reason = `the branch ${event.defaultBranch} has no commit to start from`;
    await ctx.reply(reason);
    return { kind: "replied", reason };
  }
  // The mission's settings come from the config at its base: reviewed code, as its jobs read it.
  const loaded = base.ref === event.defaultBranch && ctx.config ? { ok: true as const, config: ctx.config } : await readConfigAt(github, deps.configPath, base.commit);
  if (!loaded.ok) {
    await ctx.reply(`naruto did not start: the config is invalid.\n\n\`\`\`\n${formatConfigErrors(loaded.errors, deps.configPath)}\n\`\`\``);
    return { kind: "replied", reason: "invalid config" };
  }
  const planText = command.plan ?? issuePlan(event.issue.body);
  return requestMission(ctx, {
    id,
    base,
    task: command.task || titleOf(planText) || "run the plan",
    config: loaded.config,
    approval: command.kind === "plan",
    planText,
  });
}

/** What a comment asks a new mission to be (see the `requested` event). */
export interface MissionRequest {
  readonly id: string;
  readonly base: { readonly ref: string; readonly commit: string };
  readonly task: string;
  /** The config at the base: the mission's settings come from it. */
  readonly config: Config;
  /** Wait for `/naruto approve` after planning (`/naruto plan`); the config may ask for it too. */
  readonly approval: boolean;
  readonly planText: string | null;
  /** A review-only mission of the commits from `base.commit` to `head` (`/naruto review`). */
  readonly review?: { readonly head: string };
}

/**
 * Requests the mission in the state (its id comes from the comment: a redelivery finds it and
 * repeats nothing), makes its queue branch at the queue head, and carries out what the engine
 * asks (a plan or review run) and the tracking comment.
 */
export async function requestMission(ctx: CommentContext, input: MissionRequest): Promise<CommentOutcome> {
  const { deps, event } = ctx;
  const requested: MissionEvent = {
    type: "requested",
    at: deps.now().toISOString(),
    id: input.id,
    task: input.task,
    source: { kind: "github", repo: event.repo, issue: event.issue.number, comment_id: event.comment.id, actor: event.comment.user.login },
    base: input.base,
    queue_branch: `naruto/${input.id}`,
    settings: missionSettings(input.config, { approval: input.approval, strict: false }),
    plan_text: input.planText,
    ...(input.review ? { review: { head: input.review.head } } : {}),
  };
  const result = await applyEvent(deps.store, input.id, requested);
  await ensureQueueBranch(deps.github, result.mission, { reset: !result.duplicate || result.mission.status === "planning" });
  // A redelivery (duplicate) dispatches nothing again; a mission stuck in planning is the sweep's.
  const done = await carryOut(deps, { mission: result.mission, commands: result.duplicate ? [] : result.commands });
  return { kind: "mission", mission: input.id, created: !result.duplicate, dispatched: done.dispatched };
}

async function baseOf(github: GitHubPort, defaultBranch: string, pullRequest: { ref: string; sha: string } | null): Promise<{ ref: string; commit: string } | null> {
  if (pullRequest) return { ref: pullRequest.ref, commit: pullRequest.sha };
  const commit = await github.getRef(`refs/heads/${defaultBranch}`);
  return commit === null ? null : { ref: defaultBranch, commit };
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
    if (!(error instanceof RefExistsError)) throw error;
    if (!options.reset || mission.queue.head !== mission.base.commit) return;
    if ((await github.getRef(ref)) !== mission.base.commit) await github.updateRef({ ref, sha: mission.base.commit, force: true });
  }
}

/** A fenced `naruto` plan in the issue body, as the maintainer sees it on the page. */
function issuePlan(body: string | null): string | null {
  if (body === null) return null;
  return findFencedPlan(sanitizeUntrusted(body))?.body ?? null;
}

function titleOf(planText: string | null): string | null {
  if (planText === null) return null;
  return checkPlan(planText).plan?.title || null;
}
