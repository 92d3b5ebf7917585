/**
 * No barrier within a batch (docs/architecture.md): `fast` and `slow` become ready together and start as
 * one work run, a matrix of two; `after-fast` needs `fast` only. The slow agent does not end
 * until `after-fast`'s agent has started. If the legs of a work run were integrated only once
 * all of them ended, that could never happen: the slow agent gives up and fails, and the
 * mission with it. With the App, the end of `fast`'s leg starts an integrate run that takes it
 * onto the queue at once; `after-fast` starts from that queue while `slow` still works, and all
 * three are integrated. GitHub runs a mission's runs side by side, and so does this world.
 */
import { missionIdFor, runIdOf } from "../../../src/github-driver/mission-id.ts";
import { checkFinished, withPlan } from "../support/app-checks.ts";
import { NO_BARRIER_PLAN, noBarrier } from "../support/no-barrier.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

export const appNoBarrier: Scenario = {
  name: "app-no-barrier",
  run: () =>
    withAppWorld({ ...noBarrier(), parallelRuns: 4 }, async (world) => {
      const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan("/naruto Fast, slow, and after fast", NO_BARRIER_PLAN) });
      const id = missionIdFor(REPO, commentId);
      await world.settle(30);
      await checkFinished(world, id, { items: ["fast", "slow", "after-fast"], files: ["src/fast.js", "src/slow.txt", "src/after.txt"] });

      const mission = await world.mission(id);
      check(mission !== null, "no mission", world.runs);
      const item = (name: string) => mission.items.find((i) => i.id === name);
      const batch = runIdOf(item("fast")?.attempts[0]?.runner ?? null);
      checkEqual(runIdOf(item("slow")?.attempts[0]?.runner ?? null), batch, "fast and slow started in one run", world.runs);
      checkEqual(item("after-fast")?.attempts[0]?.base, item("fast")?.commit, "after-fast started from the queue holding fast", world.runs);
      const integrateRuns = world.runs.filter((r) => r.title === `naruto integrate ${id}`);
      check(integrateRuns.length > 0, "the App started an integrate run", world.runs);
    }),
};
