/**
 * A 64-item mission through the App and the Actions simulator (issue 15), within the API budget:
 * the 64 independent items start as one work run (a matrix of 64 legs), every leg reads its
 * mission and config over git, integration goes in batches, and the whole mission, App and jobs
 * together, makes at most {@link CALLS_PER_ITEM} API calls per item that GitHub's rate limit
 * counts (a 304 to a conditional request is not counted). A count, never a time.
 */
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { apiCallsSince, independentPlan } from "../support/api-calls.ts";
import { APP_CONFIG, checkAllIntegrated, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const ITEMS = 64;
/** The budget: a 256-item mission within 1,500 calls, about 6 per item. */
const CALLS_PER_ITEM = 6;

export const appScale: Scenario = {
  name: "app-scale",
  run: () =>
    withAppWorld(
      { config: APP_CONFIG.replace("max_parallel: 4", `max_parallel: ${ITEMS}`), appEnv: { NARUTO_TRACKING_INTERVAL_MS: "5000" } },
      async (world) => {
        const before = world.fake.requests.length;
        const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan(`/naruto ${ITEMS} files`, independentPlan(ITEMS)) });
        const id = missionIdFor(REPO, commentId);
        await world.settle(ITEMS + 20);
        await world.idle();
        await checkAllIntegrated(world, id);
        const files = (await world.bareGit("ls-tree", "-r", "--name-only", `refs/heads/naruto/${id}`)).split("\n").filter((f) => f.startsWith("src/"));
        checkEqual(files.length, ITEMS, "files on the queue", world.runs);
        const workRuns = world.runs.filter((r) => r.title === `naruto work ${id}`);
        checkEqual(workRuns.length, 1, "work runs (the 64 ready items start as one matrix)", world.runs);

        const calls = apiCallsSince(world, before);
        const counted = calls.total - calls.notModified;
        const top = calls.byOperation
          .slice(0, 8)
          .map(([op, n]) => `${op} ${n}`)
          .join("; ");
        check(
          counted <= CALLS_PER_ITEM * ITEMS,
          `${counted} API calls counted by the rate limit (${calls.total} with ${calls.notModified} 304s; App ${calls.app}, jobs ${calls.jobs}) for ${ITEMS} items: more than ${CALLS_PER_ITEM} per item; most: ${top}`,
          world.runs,
        );
        console.log(
          `e2e app-scale: ${ITEMS} items, ${counted} API calls counted by the rate limit (${(counted / ITEMS).toFixed(2)}/item), ${calls.notModified} 304s, ${world.runs.length} runs`,
        );
      },
    ),
};
