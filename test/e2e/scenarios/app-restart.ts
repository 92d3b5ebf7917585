/**
 * The App process killed (SIGKILL) in the middle of a mission and started again: it keeps
 * nothing in memory that matters, so the mission finishes and the new process keeps the
 * tracking comment current. The kill comes while the first work run is integrating, so the
 * App misses that run's last events (their deliveries fail, and GitHub does not retry them).
 */
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { trackingMarker } from "../../../src/report/index.ts";
import { APP_CONFIG, TWO_ITEM_PLAN, appUpdatesOf, checkFinished, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

export const appRestart: Scenario = {
  name: "app-restart",
  run: async () => {
    let killWhen: ((job: string, phase: unknown) => Promise<void>) | null = null;
    await withAppWorld({ config: APP_CONFIG, beforeJob: (info) => killWhen?.(info.job, info.trigger.inputs["phase"]) }, async (world) => {
      const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan("/naruto Build the tiny library", TWO_ITEM_PLAN) });
      const id = missionIdFor(REPO, commentId);
      await world.runPending(); // the plan run: work on `schema` is dispatched
      checkEqual(
        world.fake.dispatches.map((d) => d.inputs["phase"]),
        ["plan", "work"],
        "dispatches after the plan run",
        world.runs,
      );

      const firstPid = world.app.pid;
      let killed = false;
      killWhen = async (job, phase) => {
        if (killed || job !== "publish" || phase !== "work") return;
        killed = true;
        await world.app.kill();
      };
      await world.runPending(); // the first work run; the App dies before its publish job
      check(killed && world.app.pid === null, "the App was killed during the first work run", world.runs);
      const lost = world.runHooks.sent.filter((s) => s.result.status === null);
      check(lost.length > 0, "run events were lost while the App was down", world.runs);

      await world.app.start();
      check(world.app.pid !== null && world.app.pid !== firstPid, "a new App process", world.runs);
      const tracking = () => world.comments(1).find((c) => c.body.startsWith(trackingMarker(id)) && c.user.login === world.botLogin);
      const before = appUpdatesOf(world, tracking()?.id ?? 0);
      const sentBefore = world.runHooks.sent.length;

      await world.settle();
      checkEqual(
        world.runHooks.sent.slice(sentBefore).filter((s) => s.result.status !== 202).length,
        0,
        "run events the restarted App did not answer with 202",
        world.runs,
      );
      check(appUpdatesOf(world, tracking()?.id ?? 0) > before, "the restarted App updated the tracking comment", world.runs);
      await checkFinished(world, id, { items: ["schema", "users"], files: ["src/schema.js", "src/users.js"] });
    });
  },
};
