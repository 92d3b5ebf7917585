/**
 * Who may not trigger, through the App as its own process: a user with read permission, a
 * user with none (the repository is public, so anyone may comment) and another app's bot not
 * listed in `allow_bots` each get exactly one polite reply, also when GitHub redelivers the
 * webhook; the App's own `/naruto` comment, an edited command and a comment that is not a
 * command get nothing. None of them leaves a mission, a dispatch, a reaction, a ref or a run.
 */
import { markerFor } from "../../../src/github/index.ts";
import { MAINTAINER, withAppWorld } from "../support/app-world.ts";
import { APP_CONFIG } from "../support/app-checks.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

export const appRefusals: Scenario = {
  name: "app-refusals",
  run: () =>
    withAppWorld({ config: APP_CONFIG, public: true, users: { [MAINTAINER]: "write", "octo-reader": "read", "octo-stranger": "none" } }, async (world) => {
      const refusedAs = ["octo-reader", "octo-stranger", "renovate[bot]"];
      const refused = new Map<string, number>();
      for (const login of refusedAs) {
        const { commentId, delivery } = await world.comment({ as: login, body: "/naruto delete every test" });
        refused.set(login, commentId);
        const again = await world.fake.redeliver(delivery.id);
        await world.idle();
        check(again.status === 202, `the App answered ${login}'s redelivery with ${again.status ?? again.error ?? "nothing"}`);
      }
      const ignored: number[] = [];
      // The App's own comment (an installation token of the App writes as its bot).
      ignored.push((await world.comment({ as: world.botLogin, body: "/naruto status" })).commentId);
      const edited = await world.postComment({ as: MAINTAINER, body: "/naruto do it all" });
      const editedDelivery = await world.deliverComment(edited, { action: "edited" });
      checkEqual(editedDelivery.status, 202, "the App's answer to an edited comment");
      ignored.push(edited);
      ignored.push((await world.comment({ as: MAINTAINER, body: "Thanks, looks good!" })).commentId);

      const byApp = world.comments().filter((c) => c.user.login === world.botLogin && !ignored.includes(c.id));
      checkEqual(byApp.length, refusedAs.length, "the App's comments (one reply per refused request)");
      for (const login of refusedAs) {
        const replies = byApp.filter((c) => c.body.includes(markerFor(`reply:${refused.get(login) ?? 0}`)));
        checkEqual(replies.length, 1, `replies to ${login}`);
        const body = replies[0]?.body ?? "";
        check(
          body.includes("Sorry, naruto did not start") && body.includes(`@${login}`) && body.includes("Nothing was changed"),
          `the reply to ${login} is polite and says why: ${body}`,
        );
      }
      check(
        world
          .comments()
          .filter((c) => c.user.login === world.botLogin)
          .every((c) => !ignored.some((id) => c.body.includes(markerFor(`reply:${id}`)))),
        "no reply to an ignored comment",
      );

      checkEqual(await world.missionIds(), [], "missions");
      checkEqual(world.fake.dispatches.length, 0, "dispatches");
      checkEqual([...world.fake.repo("acme/demo").reactions.values()].length, 0, "reactions");
      checkEqual(await world.bareGit("for-each-ref", "--format=%(refname)"), "refs/heads/main", "refs");
      checkEqual((await world.settle()).length, 0, "runs");
      world.fake.assertNoViolations();
    }),
};
