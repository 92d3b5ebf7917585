/**
 * A local mission that ends on a base that moved (issue 37): the base branch got new commits while
 * the agents worked, so the queue stands on an old base. The drive reads the branch once at the
 * end and records `base_moved`; the report, `naruto status` and the end of `naruto run` say so and
 * name `naruto refresh ID`. Nothing is refreshed on its own here: the refresh takes the mission's
 * driver lock, which this run holds, and replays onto a branch the user may still be changing.
 */
import { gitText } from "../git/index.ts";
import { applyEvent, IllegalEventError, type Mission, type MissionStore } from "../mission/index.ts";
import type { EngineContext } from "../engine/index.ts";

const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The finished mission as stored, with `base_moved` recorded when its base branch moved. */
export async function recordMovedBase(ctx: Pick<EngineContext, "git" | "repoDir" | "now">, store: MissionStore, mission: Mission): Promise<Mission> {
  // A commit as the base never moves; a detached HEAD is wherever the user went, not a branch; an
  // empty queue has nothing to replay.
  if (mission.kind !== "run" || mission.status !== "done" || mission.queue.head === mission.base.commit) return mission;
  if (mission.base.ref === "HEAD" || FULL_SHA.test(mission.base.ref)) return mission;
  const tip = await gitText(ctx.git, {
    args: ["rev-parse", "--verify", "--quiet", "--end-of-options", `${mission.base.ref}^{commit}`],
    cwd: ctx.repoDir,
  }).catch(() => null);
  if (tip === null || tip === mission.base.commit) return mission;
  try {
    return (await applyEvent(store, mission.id, { type: "base_moved", at: ctx.now().toISOString(), commit: tip })).mission;
  } catch (error) {
    if (error instanceof IllegalEventError) return mission;
    throw error;
  }
}
