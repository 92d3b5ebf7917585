/**
 * More legs than runners (issue 33): a 64-item mission with `max_parallel: 64` on a repository
 * whose runners take at most 20 jobs at once (a GitHub Free account), through the App. The 64
 * legs start as one run; 20 get runners and the rest wait `queued` (naruto's queue and publish
 * jobs wait in the same line). Each agent takes 100 s, well within `item_timeout` (4 min),
 * but the last legs start minutes after their dispatch: measured from the dispatch, as naruto did
 * before, they would time out while queued, be retried into the same queue, and run twice. The
 * schedule runs the sweep every 40 s meanwhile, as GitHub's would over a longer mission. A heavy
 * scenario (64 legs, 20 at once, on this one machine): it takes many minutes.
 *
 * Checked: every item integrated in one attempt, no attempt timed out, each leg ran once, never
 * more than 20 jobs at once, some legs waited longer than `item_timeout` from their dispatch, and
 * the tracking comment says that `max_parallel` asked for more than the runs got.
 */
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { trackingMarker } from "../../../src/report/index.ts";
import { TEST_AGENT_READ } from "../../support/agents/index.ts";
import { independentPlan } from "../support/api-calls.ts";
import { checkAllIntegrated, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { REPO_ROOT } from "../support/world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const ITEMS = 64;
const QUOTA = 20;
const ITEM_TIMEOUT_MS = 240_000;
const slowDemoAgent = `sleep 100 && ${shellQuote(process.execPath)} ${shellQuote(`${REPO_ROOT}src/agent/demo-agent.mjs`)}`;

const CONFIG = `version: 1
agents:
  default:
    command: ${JSON.stringify(slowDemoAgent)}
    read: ${TEST_AGENT_READ}
    timeout: 3m
limits:
  max_parallel: ${ITEMS}
  max_attempts: 2
  item_timeout: ${ITEM_TIMEOUT_MS / 1000}s
`;

export const runnerQuota: Scenario = {
  name: "runner-quota",
  run: () =>
    withAppWorld(
      { config: CONFIG, parallelRuns: 8, runners: { runnerQuota: QUOTA, legConcurrency: ITEMS }, appEnv: { NARUTO_TRACKING_INTERVAL_MS: "15000" } },
      async (world) => {
        const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan(`/naruto ${ITEMS} files`, independentPlan(ITEMS)) });
        const id = missionIdFor(REPO, commentId);
        let settled = false;
        let sweeps = 0;
        // GitHub's schedule: the sweep, every 40 s here, in the runners' line like any job.
        const schedule = (async () => {
          while (!settled) {
            await new Promise((resolve) => setTimeout(resolve, 40_000));
            if (settled) break;
            await world.sim.trigger({ event: "schedule" });
            sweeps += 1;
          }
        })();
        try {
          await world.settle(ITEMS * 3);
          await world.idle();
        } finally {
          settled = true;
          await schedule;
        }
        const mission = await checkAllIntegrated(world, id);
        const timedOut = mission.items.flatMap((i) => i.attempts.filter((a) => a.status === "timed_out").map((a) => `${i.id}#${a.n}: ${a.reason ?? ""}`));
        checkEqual(timedOut, [], "attempts timed out", world.runs);
        checkEqual(
          mission.items.filter((i) => i.attempts.length !== 1).map((i) => `${i.id}: ${i.attempts.length} attempts`),
          [],
          "items with more than one attempt",
          world.runs,
        );

        const legs = world.runs.flatMap((r) => r.jobs.filter((j) => j.job === "work" && j.result !== "skipped").map((j) => j.name));
        checkEqual(legs.length, ITEMS, `work legs run (${legs.length}: each leg once)`, world.runs);
        checkEqual(new Set(legs).size, ITEMS, "distinct work legs", world.runs);
        check(world.sim.runners.peak <= QUOTA, `at most ${QUOTA} jobs ran at once (peak ${world.sim.runners.peak})`, world.runs);
        check(world.sim.runners.peakWaiting >= ITEMS - QUOTA, `legs waited for a runner (at most ${world.sim.runners.peakWaiting} at once)`, world.runs);
        const fromDispatch = Math.max(...mission.items.flatMap((i) => i.attempts.map((a) => Date.parse(a.finished_at ?? "") - Date.parse(a.dispatched_at))));
        check(
          fromDispatch > ITEM_TIMEOUT_MS,
          `some leg ended more than item_timeout after its dispatch (the longest ${Math.round(fromDispatch / 1000)} s): the scenario did not make legs wait long enough`,
          world.runs,
        );
        // The item clock stops when a leg's job ends: its result is recorded later, by a job that waits for a runner too.
        const afterExit = Math.max(
          0,
          ...mission.items.flatMap((i) => i.attempts.map((a) => (a.exited_at === null ? 0 : Date.parse(a.finished_at ?? "") - Date.parse(a.exited_at)))),
        );
        check(sweeps >= 2, `the sweep ran while legs waited (${sweeps} times)`, world.runs);
        const tracking = world.comments(1).find((c) => c.body.startsWith(trackingMarker(id)));
        check(
          tracking?.body.includes(`\`max_parallel\` is ${ITEMS}, but at most`) === true,
          `the tracking comment warns that the runs got less than max_parallel:\n${tracking?.body.slice(0, 1500) ?? "(none)"}`,
          world.runs,
        );
        world.fake.assertNoViolations();
        console.log(
          `e2e runner-quota: ${ITEMS} legs, at most ${world.sim.runners.peak} jobs at once, ${world.sim.runners.peakWaiting} waiting at most, ${sweeps} sweeps, the longest attempt ended ${Math.round(fromDispatch / 1000)} s after its dispatch, the longest result arrived ${Math.round(afterExit / 1000)} s after its job ended`,
        );
      },
    ),
};
