/**
 * GitHub refused a mission's queue branch for workflow files (PLATFORM.md: an App without the
 * `workflows` permission may not make a ref differ under `.github/workflows/` from the default
 * branch's). naruto's App never asks for that permission (app.yml), so a pull request that adds
 * or changes a workflow, or lags behind the default branch's, cannot be a mission's base through
 * the App. The user gets one reply saying so and how to go on; what the request created (the
 * mission's state, its queue branch) is removed, so nothing is left that nothing will finish.
 */
import type { WorkflowPermissionError } from "../github/index.ts";
import type { Mission } from "../mission/index.ts";
import type { CommentContext, CommentOutcome } from "./comment-types.ts";
import { message } from "./publish.ts";

/** The reply: what GitHub refused and why, that it is by design, and the ways forward. */
export function workflowRefusalText(input: {
  readonly branch: string;
  readonly head: string;
  readonly path: string;
  readonly pullRequest: boolean;
  readonly cleaned: boolean;
}): string {
  const base = input.pullRequest ? `this pull request's head (\`${input.head.slice(0, 12)}\`)` : `\`${input.head.slice(0, 12)}\``;
  return [
    `naruto did not start: GitHub refused to create the branch \`${input.branch}\` at ${base}, because its workflow file \`${input.path}\` differs from the default branch's, and naruto's GitHub App has no \`workflows\` permission.`,
    "That is by design: naruto never changes `.github/workflows/`, so its App does not ask for the permission (see `app.yml`).",
    "To go on, either:",
    `- make \`.github/workflows/\` of ${input.pullRequest ? "this pull request" : "the branch"} match the default branch: move the workflow change to a pull request of its own (merged without naruto), or update the branch if it lags behind the default branch, then comment again; or`,
    "- run naruto yourself where you may change workflows: `naruto run` on a checkout of the branch, or the naruto Action with a token that has the `workflows` permission.",
    input.cleaned
      ? "Nothing was left behind: the mission's state and branch were removed."
      : "naruto could not remove everything this request created; its log says what is left.",
  ].join("\n\n");
}

/**
 * Answers the refused request and removes what it created. The mission is discarded only when
 * nothing happened to it but its request (seq 1): a mission that went further is not this
 * request's to remove, and then only the reply is given.
 */
export async function refuseWorkflowChange(
  ctx: CommentContext,
  input: { readonly mission: Mission; readonly error: WorkflowPermissionError },
): Promise<CommentOutcome> {
  const { deps } = ctx;
  const { mission, error } = input;
  deps.log.warning(`mission ${mission.id} not started: ${error.message}`);
  const cleaned =
    mission.seq === 1 &&
    (await removeQuietly(ctx, `the branch ${mission.queue.branch}`, () => deps.github.deleteRef(`refs/heads/${mission.queue.branch}`))) &&
    (await removeQuietly(ctx, `the state of ${mission.id}`, () => deps.store.discard(mission.id)));
  await ctx.reply(
    workflowRefusalText({ branch: mission.queue.branch, head: mission.queue.head, path: error.path, pullRequest: ctx.pullRequest !== null, cleaned }),
  );
  return { kind: "replied", reason: `workflow file ${error.path}: the App has no workflows permission` };
}

/** A failed removal is logged and the reply says so: the user's answer matters more than it. */
async function removeQuietly(ctx: CommentContext, what: string, remove: () => Promise<unknown>): Promise<boolean> {
  try {
    await remove();
    return true;
  } catch (error) {
    ctx.deps.log.warning(`could not remove ${what}: ${message(error)}`);
    return false;
  }
}

/**
 * The reply when GitHub refused a worker branch mid-mission because the default branch changed
 * a workflow file since the mission's base (src/action/integrate/push-legs.ts): what happened,
 * why, what naruto did about it, and the ways on. `/naruto refresh` is not one: moving the queue
 * branch onto the new default branch changes its workflow files, which GitHub refuses too.
 */
export function workflowChangeText(input: { readonly mission: Mission; readonly branch: string; readonly path: string }): string {
  const { mission } = input;
  const queue = `\`${mission.queue.branch}\``;
  const integrated = mission.items.filter((i) => i.status === "integrated").length;
  const base = mission.pull_request === null ? `\`${mission.base.ref}\`` : "the default branch";
  return [
    `**naruto** · mission \`${mission.id}\` stopped: GitHub refused to create the branch \`${input.branch}\`, because its workflow file \`${input.path}\` differs from the default branch's. ${base} changed \`.github/workflows/\` after this mission started from \`${mission.base.commit.slice(0, 12)}\`, and GitHub lets a token without the \`workflows\` permission (naruto's App and the workflow's \`GITHUB_TOKEN\` have none) create no branch whose workflow files differ from the default branch's.`,
    `Every item still to run would be refused the same way, so naruto starts nothing more: the refused item is not retried, the items still to run are cancelled, checkpoints already pushed still integrate, and what is integrated (${integrated} of ${mission.items.length} items so far) stays on ${queue} and is reviewed as usual.`,
    `\`/naruto refresh\` cannot help: moving ${queue} onto the default branch as it is now changes its workflow files, which GitHub refuses too.`,
    "To go on, either:",
    `- merge the queue pull request as it is (or close it), then ask again for what is left: a new \`/naruto\` request starts from the default branch as it is now; or`,
    "- run naruto yourself, where workflow changes may be pushed: `naruto run` on a checkout of the default branch.",
  ].join("\n\n");
}
