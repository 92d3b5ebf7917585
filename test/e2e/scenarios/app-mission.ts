/**
 * The App as its own process (issue 7, "Tests"): a collaborator's `/naruto <task>` with a fenced
 * plan on an issue, delivered to the App as a signed webhook, becomes 👀, a tracking comment by
 * the App and a plan dispatch; the simulator runs what was dispatched until nothing is new,
 * sending the App the runs' workflow_run / workflow_job events; the mission ends with the
 * verdict on the queue pull request and the App's tracking comment showing the end state.
 *
 * This one starts the App without APP_SLUG: it learns its login from `GET /app`.
 */
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { trackingMarker } from "../../../src/report/index.ts";
import { APP_CONFIG, REST_UPDATE_COMMENT, TWO_ITEM_PLAN, appUpdatesOf, checkFinished, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

export const appMission: Scenario = {
  name: "app-mission",
  run: () =>
    withAppWorld({ config: APP_CONFIG, appSlug: null }, async (world) => {
      const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan("/naruto Build the tiny library", TWO_ITEM_PLAN) });
      const id = missionIdFor(REPO, commentId);

      // What the App did before answering the delivery, before any run.
      const repo = world.fake.repo(REPO);
      check(
        [...repo.reactions.values()].some(
          (r) => r.content === "eyes" && r.subject.kind === "comment" && r.subject.id === commentId && r.user.login === world.botLogin,
        ),
        "the App reacted 👀 to the command",
      );
      const tracking = () => world.comments(1).filter((c) => c.body.startsWith(trackingMarker(id)));
      checkEqual(
        tracking().map((c) => c.user.login),
        [world.botLogin],
        "tracking comments right after the command",
      );
      checkEqual(
        world.fake.dispatches.map((d) => [d.inputs["mission"], d.inputs["phase"], d.ref, d.actor]),
        [[id, "plan", "main", world.botLogin]],
        "dispatches right after the command",
      );
      checkEqual((await world.mission(id))?.status, "planning", "mission status right after the command");
      const appRequests = world.fake.requests.filter((r) => r.user === world.botLogin);
      check(appRequests.length > 0 && appRequests.every((r) => r.enterprise), "the App called the REST API under /api/v3 (GHE_HOST, GHE_PROTOCOL)");
      check(
        world.fake.requests.some((r) => r.operation === "GET /app" && r.status === 200),
        "without APP_SLUG the App asked GET /app for its slug",
      );

      await world.settle();
      checkEqual(
        world.runs.map((r) => r.event),
        world.runs.map(() => "workflow_dispatch"),
        "runs (the App takes comments: no issue_comment run)",
        world.runs,
      );
      check(world.runs.length >= 3, `a plan, work and review run at least: ${world.runs.length}`, world.runs);
      await checkFinished(world, id, { items: ["schema", "users"], files: ["src/schema.js", "src/users.js"] });

      // The run events reached the App, and it re-rendered the tracking comment from them.
      const failed = world.runHooks.sent.filter((s) => s.result.status !== 202);
      checkEqual(
        failed.map((s) => `${s.event}.${s.action} ${s.result.status ?? s.result.error ?? ""}`),
        [],
        "run webhooks the App did not answer with 202 (taken, handled after the answer)",
        world.runs,
      );
      const events = new Set(world.runHooks.sent.map((s) => `${s.event}.${s.action}`));
      for (const e of ["workflow_run.requested", "workflow_run.in_progress", "workflow_run.completed", "workflow_job.in_progress", "workflow_job.completed"])
        check(events.has(e), `the App was sent ${e}`, world.runs);
      const comment = tracking()[0];
      check(comment !== undefined, "the tracking comment is there", world.runs);
      check(appUpdatesOf(world, comment.id) >= 1, "the App updated the tracking comment from the run events", world.runs);
      // The review run is found by its title (`run-name`): the App's render after it is the last word.
      const last = world.fake.requests
        .filter((r) => r.operation === REST_UPDATE_COMMENT && r.status === 200 && r.path.endsWith(`/comments/${comment.id}`))
        .at(-1);
      const lastBody = (last?.body as { body?: unknown } | undefined)?.body;
      check(
        last?.user === world.botLogin && typeof lastBody === "string" && lastBody.includes("· done ·") && lastBody.includes("approve"),
        `the last update of the tracking comment is the App's, showing the verdict (by ${last?.user ?? "nobody"})`,
        world.runs,
      );
    }),
};
