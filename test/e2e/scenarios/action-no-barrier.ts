/**
 * No barrier within a batch without the App (docs/architecture.md): the plan of `app-no-barrier`, run by
 * the workflow alone. `fast` and `slow` start as one work run, a matrix of two; `after-fast`
 * needs `fast` only, and the slow agent does not end until `after-fast`'s agent has started. If
 * the legs of a work run were integrated only once all of them ended (the run's queue job needs
 * every leg), that could never happen: the slow agent gives up and fails, and the mission with
 * it. The work run's watch job sees `fast`'s leg end and dispatches an integrate run that takes
 * it onto the queue at once; `after-fast` starts from that queue while `slow` still works.
 */
import { runIdOf } from "../../../src/github-driver/mission-id.ts";
import { missionResult } from "../../../src/report/index.ts";
import { withPlan } from "../support/app-checks.ts";
import { NO_BARRIER_PLAN, noBarrier } from "../support/no-barrier.ts";
import { startWorld } from "../support/world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

export const actionNoBarrier: Scenario = {
  name: "action-no-barrier",
  run: async () => {
    const world = await startWorld({ ...noBarrier(), parallelRuns: 4 });
    try {
      const command = await world.comment(withPlan("/naruto Fast, slow, and after fast", NO_BARRIER_PLAN));
      check(command !== null, "the workflow did not run for the /naruto comment");
      const runs = [command, ...(await world.settle(30))];
      const [id] = await world.missionIds();
      check(id !== undefined, "no mission", runs);
      const mission = await world.mission(id);
      check(mission !== null, "the mission is not stored", runs);
      const result = missionResult(mission);
      checkEqual(
        Object.fromEntries(result.items.map((i) => [i.id, i.status])),
        { fast: "integrated", slow: "integrated", "after-fast": "integrated" },
        "item statuses",
        runs,
      );
      checkEqual(result.status, "done", "mission status", runs);
      for (const r of runs) for (const j of r.jobs) check(j.result === "success" || j.result === "skipped", `${j.name} of run ${r.id}: ${j.result}`, runs);

      const item = (name: string) => mission.items.find((i) => i.id === name);
      const batch = runIdOf(item("fast")?.attempts[0]?.runner ?? null);
      checkEqual(runIdOf(item("slow")?.attempts[0]?.runner ?? null), batch, "fast and slow started in one run", runs);
      checkEqual(item("after-fast")?.attempts[0]?.base, item("fast")?.commit, "after-fast started from the queue holding fast", runs);
      const watched = runs.find((r) => r.id === batch)?.jobs.find((j) => j.job === "watch");
      checkEqual(watched?.result, "success", "the work run's watch job", runs);
      check(
        runs.some((r) => r.title === `naruto integrate ${id}`),
        "the watch job started an integrate run",
        runs,
      );
      const files = (await world.bareGit("ls-tree", "-r", "--name-only", `refs/heads/naruto/${id}`)).split("\n");
      for (const f of ["src/fast.js", "src/slow.txt", "src/after.txt"]) check(files.includes(f), `${f} is on the queue`, runs);
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
