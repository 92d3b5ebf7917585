/**
 * `/naruto approve | status | retry | cancel` on the issue or pull request of a mission: the
 * newest mission started there (the newest still under way, for approve and cancel) gets the
 * event; what the engine says next is carried out like anywhere else.
 */
import type { Mission } from "../mission/index.ts";
import { IllegalEventError } from "../mission/index.ts";
import type { MissionCommand as EngineCommand, MissionEvent } from "../mission/index.ts";
import { isMissionTerminal } from "../mission/index.ts";
import { applyEvent } from "../mission/index.ts";
import { carryOut } from "./carry-out.ts";
import { missionsOfIssue } from "./find-mission.ts";
import type { CommentContext, CommentOutcome } from "./comment-types.ts";

type MissionCommand = { kind: "approve" } | { kind: "status" } | { kind: "retry"; target: string } | { kind: "cancel" };

export async function actOnMission(ctx: CommentContext, command: MissionCommand): Promise<CommentOutcome> {
  const { deps, event } = ctx;
  const missions = await missionsOfIssue(deps, event.repo, event.issue.number);
  const mission = pick(missions, command.kind);
  if (mission === null) {
    const reason = `there is no naruto mission on this ${event.issue.pullRequest ? "pull request" : "issue"} to ${command.kind}`;
    await ctx.reply(reason);
    return { kind: "replied", reason };
  }
  const at = deps.now().toISOString();
  const by = event.comment.user.login;
  const events: Record<MissionCommand["kind"], MissionEvent | null> = {
    approve: { type: "approved", at, by },
    status: null,
    retry: { type: "retry_requested", at, target: command.kind === "retry" ? command.target : "failed" },
    cancel: { type: "cancelled", at, by },
  };
  const e = events[command.kind];
  let start: { mission: Mission; commands: readonly EngineCommand[] } = { mission, commands: [] };
  if (e !== null) {
    try {
      const result = await applyEvent(deps.store, mission.id, e);
      start = { mission: result.mission, commands: result.commands };
    } catch (error) {
      if (!(error instanceof IllegalEventError)) throw error;
      await ctx.reply(`naruto could not ${command.kind} mission \`${mission.id}\`: ${error.message}`);
      return { kind: "replied", reason: error.message };
    }
  }
  const done = await carryOut(deps, start);
  return { kind: "mission", mission: mission.id, created: false, dispatched: done.dispatched };
}

/** Approve and cancel act on a mission under way; status and retry on the newest one. */
function pick(missions: readonly Mission[], kind: MissionCommand["kind"]): Mission | null {
  if (kind === "approve" || kind === "cancel") return missions.find((m) => !isMissionTerminal(m.status)) ?? missions[0] ?? null;
  return missions[0] ?? null;
}
