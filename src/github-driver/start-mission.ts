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
import type { CommentContext, CommentOutcome } from "./handle-comment.ts";
import { missionIdFor } from "./mission-id.ts";
import { missionSettings, readConfigAt } from "./settings.ts";
import { formatConfigErrors } from "../config/index.ts";

export async function startMission(ctx: CommentContext, command: { kind: "run" | "plan"; task: string; plan: string | null }): Promise<CommentOutcome> {
  const { deps, event } = ctx;
  const { github, store } = deps;
  if (ctx.pullRequest?.fromFork) {
    const reason = "missions on pull requests from forks are not available in the app-less mode: comment on an issue, or push the branch to this repository";
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
  const requested: MissionEvent = {
    type: "requested",
    at: deps.now().toISOString(),
    id,
    task: command.task || titleOf(planText) || "run the plan",
    source: { kind: "github", repo: event.repo, issue: event.issue.number, comment_id: event.comment.id, actor: event.comment.user.login },
    base,
    queue_branch: `naruto/${id}`,
    settings: missionSettings(loaded.config, { approval: command.kind === "plan", strict: false }),
    plan_text: planText,
  };
  const result = await applyEvent(store, id, requested);
  await ensureQueueBranch(github, result.mission, { reset: !result.duplicate || result.mission.status === "planning" });
  // A redelivery (duplicate) dispatches nothing again; a mission stuck in planning is the sweep's.
  const done = await carryOut(deps, { mission: result.mission, commands: result.duplicate ? [] : result.commands });
  return { kind: "mission", mission: id, created: !result.duplicate, dispatched: done.dispatched };
}

async function baseOf(github: GitHubPort, defaultBranch: string, pullRequest: { ref: string; sha: string } | null): Promise<{ ref: string; commit: string } | null> {
  if (pullRequest) return { ref: pullRequest.ref, commit: pullRequest.sha };
  const commit = await github.getRef(`refs/heads/${defaultBranch}`);
  return commit === null ? null : { ref: defaultBranch, commit };
}

/**
 * Creates `naruto/<mission>` at the queue head when it is missing. With `reset` (a new mission):
 * an existing branch can only be left by an earlier try at this same mission, and is put back at
 * the stored base. Without (the integrate job), an existing branch is left alone: it may hold
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
