/**
 * A pull request that adds `.github/workflows/x.yml`, through the App as its own process with
 * exactly app.yml's permissions (no `workflows`, by design): GitHub refuses the mission's queue
 * branch at the pull request's head. The maintainer's `/naruto plan` gets one clear reply (what
 * happened, that the App has no `workflows` permission by design, how to go on), the delivery
 * is answered 2xx, and nothing is left behind: no branch, no mission state, no dispatch, no run of
 * naruto's (the pull request's own workflow runs on it, as on GitHub);
 * a redelivery changes none of that.
 */
import { markerFor } from "../../../src/github/index.ts";
import { MAINTAINER, withAppWorld } from "../support/app-world.ts";
import { APP_CONFIG } from "../support/app-checks.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const WORKFLOW = ".github/workflows/x.yml";

export const appWorkflowRefusal: Scenario = {
  name: "app-workflow-refusal",
  run: () =>
    withAppWorld({ config: APP_CONFIG }, async (world) => {
      const pull = await world.openPullRequest({
        as: MAINTAINER,
        branch: "lint-in-ci",
        files: {
          [WORKFLOW]: "name: lint\non: pull_request\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm run lint\n",
          "src/lint.ts": "export const lint = true;\n",
        },
        title: "Lint in CI",
      });
      const refsBefore = await world.bareGit("for-each-ref", "--format=%(refname) %(objectname)");

      // world.comment throws unless the App answered the delivery 2xx.
      const { commentId, delivery } = await world.comment({ as: MAINTAINER, body: "/naruto plan add a lint rule for src/", issue: pull });
      const refused = world.fake.requests.filter((r) => r.operation === "POST /repos/{owner}/{repo}/git/refs" && r.status === 403);
      checkEqual(refused.length, 1, "GitHub's refusals of a ref (the queue branch at the pull request's head)");

      const byApp = () => world.comments().filter((c) => c.user.login === world.botLogin);
      checkEqual(
        byApp().map((c) => c.issueNumber),
        [pull],
        "the App's comments (one reply, on the pull request)",
      );
      const reply = byApp()[0]?.body ?? "";
      check(reply.includes(markerFor(`reply:${commentId}`)), `the reply is keyed to the command: ${reply}`);
      for (const words of [
        `\`${WORKFLOW}\``,
        "no `workflows` permission",
        "by design",
        "move the workflow change to a pull request of its own",
        "`naruto run`",
        "Nothing was left behind",
      ]) {
        check(reply.includes(words), `the reply says ${JSON.stringify(words)}: ${reply}`);
      }

      checkEqual(await world.bareGit("for-each-ref", "--format=%(refname) %(objectname)"), refsBefore, "refs (nothing created, nothing moved)");
      checkEqual(await world.missionIds(), [], "missions");
      checkEqual(world.fake.dispatches.length, 0, "dispatches");
      // The pull request's own workflow runs on it, as on GitHub; naruto starts none.
      checkEqual(
        (await world.settle()).map((r) => `${r.event}: ${r.title}`),
        ["pull_request: lint"],
        "runs (the pull request's own CI only)",
      );

      const again = await world.redeliver(delivery.id);
      checkEqual(again, 202, "the App's answer to the redelivery");
      checkEqual(byApp().length, 1, "the App's comments after the redelivery");
      checkEqual(await world.bareGit("for-each-ref", "--format=%(refname) %(objectname)"), refsBefore, "refs after the redelivery");
      checkEqual(await world.missionIds(), [], "missions after the redelivery");
      check(
        world.comments(pull).every((c) => c.user.login !== world.botLogin || !c.body.includes("naruto:tracking")),
        "no tracking comment",
      );
      world.fake.assertNoViolations();
    }),
};
