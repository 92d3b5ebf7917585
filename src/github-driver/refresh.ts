/**
 * Refresh on GitHub (issue 37): `/naruto refresh` on a mission's issue or its queue pull request
 * (with or without the App: the same comment handler). naruto reads the base
 * branch's head; when it moved, a `refresh` run replays the queue onto it: its queue job verifies
 * (no write token), its publish job rebuilds the same commits, moves the queue branch with a lease,
 * records the `refreshed` event, and updates the pull request and the tracking comment.
 */
import { applyEvent, IllegalEventError, type Mission } from "../mission/index.ts";
import { codeSpan } from "../report/index.ts";
import { carryOut } from "./carry-out.ts";
import type { CommentContext, CommentOutcome } from "./comment-types.ts";
import type { DriverDeps } from "./deps.ts";
import { missionsOfIssue } from "./find-mission.ts";

const QUEUE_BRANCH = /^naruto\/(m-[a-z0-9]{4,32})$/;

export type RefreshRequest =
  | { readonly kind: "unchanged"; readonly message: string }
  | { readonly kind: "refused"; readonly message: string }
  /** Another refresh run of the mission is under way (or was asked for by this same request already). */
  | { readonly kind: "under_way"; readonly message: string }
  | { readonly kind: "dispatched"; readonly message: string; readonly runUrl: string | null };

/** Whether the mission's queue can be refreshed, and why not. */
function refusal(mission: Mission): string | null {
  if (mission.kind !== "run") return `mission ${codeSpan(mission.id)} reviews a pull request: it has no queue to refresh`;
  if (mission.status === "planning" || mission.status === "awaiting_approval")
    return `mission ${codeSpan(mission.id)} is ${mission.status}: its queue holds nothing yet`;
  if (mission.status === "failed" || mission.status === "cancelled")
    return `mission ${codeSpan(mission.id)} is ${mission.status}: start it again to build on the new base`;
  return null;
}

/**
 * Reads the base branch's head and, when it moved, takes the mission's refresh lease (the
 * `refresh_requested` event, saved with the state's compare-and-swap) and dispatches the refresh
 * run. `handover` (the default: a person's command, the ending refresh run asking for the next)
 * takes the lease even while another refresh is under way; a push does not, so that a burst of
 * pushes, a redelivered one or two App replicas never start two refresh runs of one mission.
 */
export async function requestRefresh(deps: DriverDeps, mission: Mission, options: { readonly handover?: boolean } = {}): Promise<RefreshRequest> {
  const refused = refusal(mission);
  if (refused !== null) return { kind: "refused", message: refused };
  const tip = await deps.github.getRef(`refs/heads/${mission.base.ref}`);
  if (tip === null) return { kind: "refused", message: `the base branch ${codeSpan(mission.base.ref)} of mission ${codeSpan(mission.id)} is gone` };
  if (tip === mission.base.commit) {
    return {
      kind: "unchanged",
      message: `nothing to refresh: ${codeSpan(mission.base.ref)} is still at ${codeSpan(tip.slice(0, 12))}, the base of mission ${codeSpan(mission.id)}`,
    };
  }
  const at = deps.now().toISOString();
  try {
    const claimed = await applyEvent(deps.store, mission.id, { type: "refresh_requested", at, onto: tip, handover: options.handover ?? true });
    if (claimed.duplicate)
      return { kind: "under_way", message: `a refresh of mission ${codeSpan(mission.id)} onto ${codeSpan(tip.slice(0, 12))} was asked for already` };
  } catch (error) {
    if (!(error instanceof IllegalEventError)) throw error;
    return { kind: "under_way", message: error.message };
  }
  let run: Awaited<ReturnType<DriverDeps["github"]["dispatchWorkflow"]>>;
  try {
    run = await deps.github.dispatchWorkflow({ workflow: deps.workflow, ref: deps.ref, inputs: { mission: mission.id, phase: "refresh" } });
  } catch (error) {
    // No run holds the lease: give it back, so that the next push or command can ask again.
    await releaseRefresh(deps, mission.id).catch(() => undefined);
    throw error;
  }
  deps.log.info(`dispatched refresh for ${mission.id}${run.runUrl ? `: ${run.runUrl}` : ""}`);
  const runUrl = run.runUrl ?? null;
  return {
    kind: "dispatched",
    runUrl,
    message: `refreshing mission ${codeSpan(mission.id)}: its queue is replayed onto ${codeSpan(mission.base.ref)} at ${codeSpan(tip.slice(0, 12))} (from ${codeSpan(mission.base.commit.slice(0, 12))}) and verified${runUrl?.startsWith("http") ? ` ([run](${runUrl}))` : ""}; the tracking comment shows the result`,
  };
}

/** The refresh run asked for last ended without landing: the lease is free again. */
export async function releaseRefresh(deps: Pick<DriverDeps, "store" | "now">, id: string): Promise<void> {
  await applyEvent(deps.store, id, { type: "refresh_requested", at: deps.now().toISOString(), onto: null, handover: true });
}

/** `/naruto refresh`: the mission of the queue pull request it is on, else the issue's newest. */
export async function refreshOnComment(ctx: CommentContext): Promise<CommentOutcome> {
  const { deps, event } = ctx;
  // A queue pull request is naruto's own branch in this repository; a fork's branch of that name is not.
  const fromQueue = ctx.pullRequest === null || ctx.pullRequest.fromFork ? null : QUEUE_BRANCH.exec(ctx.pullRequest.ref)?.[1];
  const mission = fromQueue
    ? ((await deps.store.load(fromQueue))?.mission ?? null)
    : ((await missionsOfIssue(deps, event.repo, event.issue.number))[0] ?? null);
  if (mission === null) {
    const reason = `there is no naruto mission on this ${event.issue.pullRequest ? "pull request" : "issue"} to refresh`;
    await ctx.reply(reason);
    return { kind: "replied", reason };
  }
  const asked = await requestRefresh(deps, mission);
  await ctx.reply(asked.message);
  if (asked.kind === "unchanged") await carryOut(deps, { mission, commands: [] });
  return asked.kind === "dispatched" ? { kind: "mission", mission: mission.id, created: false, dispatched: [] } : { kind: "replied", reason: asked.message };
}
