/**
 * GitHub Enterprise Server 3.20 and older answer a dispatch carrying `return_run_details` with
 * 400 (cli/cli#12672): before the fix every dispatch naruto made failed there, and no mission got
 * past its plan. The fake plays such a server. Both ways naruto dispatches run a mission to its
 * verdict: the App (whose first dispatch is refused, sent again without the field, and whose
 * later dispatches on that installation and repository leave it out), and the workflow alone
 * (the `command` job and each publish job learn it on their own first dispatch).
 */
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { missionResult } from "../../../src/report/index.ts";
import { APP_CONFIG, TWO_ITEM_PLAN, checkFinished, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { startWorld } from "../support/world.ts";
import type { FakeGitHub } from "../../support/fake-github/index.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const GHES = "3.20";
const DISPATCH = "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches";

/** Each dispatch request by `user` (all when null): its status and whether it asked for the run. */
function dispatchRequests(fake: FakeGitHub, user: (login: string | null) => boolean): string[] {
  return fake.requests
    .filter((r) => r.operation === DISPATCH && user(r.user))
    .map((r) => `${r.status}${(r.body as Record<string, unknown> | undefined)?.["return_run_details"] === true ? " with return_run_details" : ""}`);
}

export const ghesDispatch: Scenario = {
  name: "ghes-dispatch",
  run: async () => {
    await withAppWorld({ config: APP_CONFIG, ghesVersion: GHES }, async (world) => {
      const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan("/naruto Build the tiny library", TWO_ITEM_PLAN) });
      const id = missionIdFor(REPO, commentId);
      await world.settle();
      await checkFinished(world, id, { items: ["schema", "users"], files: ["src/schema.js", "src/users.js"] });
      const byApp = dispatchRequests(world.fake, (login) => login === world.botLogin);
      checkEqual(
        byApp.slice(0, 2),
        ["400 with return_run_details", "204"],
        "the App's first dispatch: refused for the field, then sent without it",
        world.runs,
      );
      checkEqual(
        byApp.slice(2).filter((d) => d !== "204"),
        [],
        "the App's later dispatches on this installation and repository (without the field)",
        world.runs,
      );
      check(world.fake.dispatches.length >= 3, `a plan, work and review run were dispatched: ${world.fake.dispatches.length}`, world.runs);
    });

    const world = await startWorld({ config: APP_CONFIG, ghesVersion: GHES });
    try {
      const command = await world.comment(withPlan("/naruto Build the tiny library", TWO_ITEM_PLAN));
      check(command !== null, "the workflow did not run for the /naruto comment");
      const runs = [command, ...(await world.settle())];
      const [id] = await world.missionIds();
      check(id !== undefined, "no mission", runs);
      const mission = await world.mission(id);
      check(mission !== null, "the mission is not stored", runs);
      const result = missionResult(mission);
      checkEqual(result.status, "done", "mission status (workflow alone)", runs);
      checkEqual(
        result.items.map((i) => i.status),
        ["integrated", "integrated"],
        "item statuses (workflow alone)",
        runs,
      );
      const all = dispatchRequests(world.fake, () => true);
      checkEqual(all.filter((d) => d === "204").length, world.fake.dispatches.length, "every dispatch that went through was sent without the field", runs);
      check(
        all.filter((d) => d !== "204").every((d) => d === "400 with return_run_details"),
        `only the field was ever refused: ${all.join(", ")}`,
        runs,
      );
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
