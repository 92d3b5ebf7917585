/**
 * `/naruto plan …` then `/naruto approve`, through the App as its own process: the plan is
 * checked and posted in the tracking comment and nothing else runs (no work dispatched, no
 * worker branch) until a collaborator approves; the approval, delivered to the App, dispatches
 * the work and the mission runs to its verdict.
 */
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { trackingMarker } from "../../../src/report/index.ts";
import { APP_CONFIG, ONE_ITEM_PLAN, checkFinished, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

export const appPlanApprove: Scenario = {
  name: "app-plan-approve",
  run: () =>
    withAppWorld({ config: APP_CONFIG }, async (world) => {
      const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan("/naruto plan Write a guide", ONE_ITEM_PLAN) });
      const id = missionIdFor(REPO, commentId);
      const phases = () => world.fake.dispatches.filter((d) => d.inputs["mission"] === id).map((d) => d.inputs["phase"]);
      checkEqual(phases(), ["plan"], "dispatches after /naruto plan");

      await world.settle();
      checkEqual((await world.mission(id))?.status, "awaiting_approval", "mission status once planned", world.runs);
      checkEqual(phases(), ["plan"], "dispatches while the plan waits (nothing runs)", world.runs);
      checkEqual(
        await world.bareGit("for-each-ref", "--format=%(refname)", `refs/heads/naruto/${id}--*`),
        "",
        "worker branches while the plan waits",
        world.runs,
      );
      const tracking = world.comments(1).filter((c) => c.body.startsWith(trackingMarker(id)));
      check(
        tracking.some((c) => c.body.includes("guide")),
        "the plan is posted in the tracking comment",
        world.runs,
      );

      const approval = await world.comment({ as: MAINTAINER, body: "/naruto approve" });
      check(
        [...world.fake.repo(REPO).reactions.values()].some((r) => r.content === "eyes" && r.subject.kind === "comment" && r.subject.id === approval.commentId),
        "the App reacted 👀 to the approval",
        world.runs,
      );
      checkEqual((await world.mission(id))?.status, "running", "mission status once approved", world.runs);
      const work = world.fake.dispatches.filter((d) => d.inputs["mission"] === id && d.inputs["phase"] === "work");
      checkEqual(
        work.map((d) => [d.actor, d.inputs["items"]]),
        [[world.botLogin, JSON.stringify([{ item: "guide", attempt: 1 }])]],
        "work dispatched by the App on approval",
        world.runs,
      );

      await world.settle();
      await checkFinished(world, id, { items: ["guide"], files: ["docs/guide.md"] });
    }),
};
