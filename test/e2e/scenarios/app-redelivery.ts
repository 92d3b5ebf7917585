/**
 * A delivery seen more than once, through the App as its own process: GitHub redelivers a
 * `/naruto` comment (same X-GitHub-Delivery, same bytes) while a second App replica receives it
 * too, at the same moment; later, once the mission is running, both get it once more. One
 * mission, one tracking comment, one plan dispatch, and the state is not written again.
 */
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { trackingMarker } from "../../../src/report/index.ts";
import { APP_CONFIG, ONE_ITEM_PLAN, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

export const appRedelivery: Scenario = {
  name: "app-redelivery",
  run: () =>
    withAppWorld({ config: APP_CONFIG }, async (world) => {
      const replica = await world.startReplica();
      const commentId = await world.postComment({ as: MAINTAINER, body: withPlan("/naruto Write a guide", ONE_ITEM_PLAN) });
      const id = missionIdFor(REPO, commentId);
      // The first delivery reaches both replicas at once; then GitHub redelivers it.
      const first = await world.deliverComment(commentId);
      const [toReplica, again] = await Promise.all([world.redeliver(first.id, { url: replica.url }), world.redeliver(first.id)]);
      checkEqual([first.status, toReplica, again], [202, 202, 202], "the replicas' answers");
      checkEqual(new Set(world.fake.deliveries.map((d) => d.id)).size, 1, "deliveries (one id, sent three times)");

      const dispatches = () => world.fake.dispatches.map((d) => `${d.inputs["mission"]} ${d.inputs["phase"]}`);
      const tracking = () => world.comments(1).filter((c) => c.body.startsWith(trackingMarker(id)));
      checkEqual(await world.missionIds(), [id], "missions");
      checkEqual(dispatches(), [`${id} plan`], "dispatches");
      checkEqual(
        tracking().map((c) => c.user.login),
        [world.botLogin],
        "tracking comments",
      );
      checkEqual(
        [...world.fake.repo(REPO).reactions.values()].filter((r) => r.subject.kind === "comment" && r.subject.id === commentId).map((r) => r.content),
        ["eyes"],
        "reactions on the command",
      );

      // Once the plan ran and work was dispatched, the same delivery must not start anything.
      await world.runPending();
      checkEqual(dispatches(), [`${id} plan`, `${id} work`], "dispatches after the plan run", world.runs);
      const seq = (await world.mission(id))?.seq;
      const state = await world.bareGit("rev-parse", `refs/heads/naruto-state/${id}`);
      const late = await Promise.all([world.redeliver(first.id), world.redeliver(first.id, { url: replica.url })]);
      checkEqual(late, [202, 202], "the replicas' answers to the late redelivery", world.runs);
      checkEqual(dispatches(), [`${id} plan`, `${id} work`], "dispatches after the late redelivery", world.runs);
      checkEqual((await world.mission(id))?.seq, seq, "mission seq after the late redelivery", world.runs);
      checkEqual(await world.bareGit("rev-parse", `refs/heads/naruto-state/${id}`), state, "the state ref after the late redelivery", world.runs);
      checkEqual(await world.missionIds(), [id], "missions after the late redelivery", world.runs);
      check(
        tracking().length >= 1 && tracking().filter((c) => c.user.login === world.botLogin).length === 1,
        "still one tracking comment by the App",
        world.runs,
      );
      world.fake.assertNoViolations();
    }),
};
