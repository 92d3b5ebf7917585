/**
 * One integrate run in flight per work run, with the App (src/app/integrate-flights.ts): a
 * mission of 8 independent items, `max_parallel: 8`, on a repository whose runners take 3 jobs at
 * once. The 8 legs start as one work run; 3 get runners at a time, so legs end in waves, close
 * together, while the integrate run the first end started waits in the runners' line behind the
 * queued legs (GitHub hands runners out first come, first served). An integrate run per ended leg
 * would pile up there, each but the first finding nothing left. The App keeps one of the work
 * run in flight and, when it completes, dispatches one more if legs ended meanwhile.
 *
 * Checked: every item integrated in one attempt; never two integrate runs of the work run in
 * flight at once (from the order of GitHub's `workflow_run` webhooks); fewer integrate runs than
 * legs; at most 3 jobs at once.
 */
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { independentPlan } from "../support/api-calls.ts";
import { APP_CONFIG, checkAllIntegrated, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { integrateFlightsSeen } from "../support/integrate-flights.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const ITEMS = 8;
const QUOTA = 3;

export const appIntegrateInFlight: Scenario = {
  name: "app-integrate-in-flight",
  run: () =>
    withAppWorld(
      {
        config: APP_CONFIG.replace("max_parallel: 4", `max_parallel: ${ITEMS}`),
        // GitHub starts every dispatched run at once; only the runners make its jobs wait.
        parallelRuns: 16,
        runners: { runnerQuota: QUOTA, legConcurrency: ITEMS },
      },
      async (world) => {
        const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan(`/naruto ${ITEMS} files`, independentPlan(ITEMS)) });
        const id = missionIdFor(REPO, commentId);
        await world.settle(ITEMS * 3);
        await world.idle();
        const mission = await checkAllIntegrated(world, id);
        checkEqual(
          mission.items.filter((i) => i.attempts.length !== 1).map((i) => i.id),
          [],
          "items with more than one attempt",
          world.runs,
        );
        const seen = integrateFlightsSeen({ mission: id, dispatches: world.fake.dispatches, sent: world.runHooks.sent });
        const workRuns = world.fake.dispatches.filter((d) => d.inputs["mission"] === id && d.inputs["phase"] === "work").length;
        const integrateRuns = [...seen.perWorkRun.values()].reduce((a, b) => a + b, 0);
        console.log(
          `e2e app-integrate-in-flight: ${ITEMS} legs in ${workRuns} work run(s), runner quota ${QUOTA} (peak ${world.sim.runners.peak} jobs, ${world.sim.runners.peakWaiting} waiting): ${integrateRuns} integrate runs, at most ${seen.peakInFlight} of one work run in flight`,
        );
        checkEqual(seen.overlaps, [], "integrate runs dispatched while another of their work run was in flight", world.runs);
        check(integrateRuns > 0, "the App started an integrate run", world.runs);
        check(integrateRuns < ITEMS, `fewer integrate runs than legs (${integrateRuns} for ${ITEMS})`, world.runs);
        check(world.sim.runners.peak <= QUOTA, `at most ${QUOTA} jobs ran at once (peak ${world.sim.runners.peak})`, world.runs);
        world.fake.assertNoViolations();
      },
    ),
};
