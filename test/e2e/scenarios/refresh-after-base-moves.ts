/**
 * Refresh on a moved base, through the App (issue 37): a mission runs to its verdict, then
 * `main` moves while the queue pull request is open. `/naruto refresh` on the queue pull request
 * dispatches a `refresh` run: its queue job replays the queue onto `main` as it is now and
 * verifies it, its publish job (which runs nothing of the repository) rebuilds the same commits,
 * moves the queue branch with a lease, and the mission is reviewed again. The pull request ends
 * on the new base with a new verdict check on its new head, and the tracking comment says so.
 * A second `/naruto refresh` with nothing moved says so and dispatches nothing.
 */
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { trackingMarker } from "../../../src/report/index.ts";
import { APP_CONFIG, ONE_ITEM_PLAN, checkFinished, checkRefreshedOnto, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

/** The queue's verify: green unless the candidate holds BROKEN (run once per candidate). */
const CONFIG = `${APP_CONFIG}queue:
  verify: "test ! -e BROKEN"
`;

export const refreshAfterBaseMoves: Scenario = {
  name: "refresh-after-base-moves",
  run: () =>
    withAppWorld({ config: CONFIG }, async (world) => {
      const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan("/naruto Write a guide", ONE_ITEM_PLAN) });
      const id = missionIdFor(REPO, commentId);
      await world.settle();
      const before = await checkFinished(world, id, { items: ["guide"], files: ["docs/guide.md"] });
      const pull = [...world.fake.repo(REPO).pulls.values()].find((p) => p.headRef === `naruto/${id}`);
      if (pull === undefined) throw new Error("no queue pull request");

      // main moves while the queue pull request is open: a commit nobody's item touches.
      const oldMain = await world.bareGit("rev-parse", "refs/heads/main");
      const tree = await world.rest<{ sha: string }>(MAINTAINER, "POST", `/repos/${REPO}/git/trees`, {
        base_tree: await world.bareGit("rev-parse", `${oldMain}^{tree}`),
        tree: [{ path: "NEWS.md", mode: "100644", type: "blob", content: "# News\n" }],
      });
      const commit = await world.rest<{ sha: string }>(MAINTAINER, "POST", `/repos/${REPO}/git/commits`, {
        message: "News",
        tree: tree.sha,
        parents: [oldMain],
      });
      await world.rest(MAINTAINER, "PATCH", `/repos/${REPO}/git/refs/heads/main`, { sha: commit.sha });
      const newMain = commit.sha;

      const asked = await world.comment({ as: MAINTAINER, body: "/naruto refresh", issue: pull.number });
      const refreshes = () => world.fake.dispatches.filter((d) => d.inputs["mission"] === id && d.inputs["phase"] === "refresh");
      checkEqual(
        refreshes().map((d) => d.actor),
        [world.botLogin],
        "refresh runs dispatched by the App on /naruto refresh",
      );
      const reply = world.comments(pull.number).find((c) => c.user.login === world.botLogin && c.body.includes("refreshing mission"));
      check(
        reply?.body.includes(newMain.slice(0, 12)) === true,
        `the App answered that the queue is replayed onto main at ${newMain.slice(0, 12)} (comment ${asked.commentId})`,
      );

      await world.settle();
      const { mission: after, head } = await checkRefreshedOnto(world, id, { from: before.base.commit, onto: newMain });
      check(after.queue.head !== before.queue.head, "the queue has a new head", world.runs);
      // The queue branch on GitHub: the new head, on top of the new main, with the item's file.
      checkEqual(await world.bareGit("rev-list", "--count", `${newMain}..${head}`), "1", "one replayed commit on the new main", world.runs);
      const files = (await world.bareGit("ls-tree", "-r", "--name-only", head)).split("\n");
      check(
        files.includes("docs/guide.md") && files.includes("NEWS.md"),
        `the queue holds the item's file and main's new one: ${files.join(", ")}`,
        world.runs,
      );
      // The checks re-ran: a verdict check run on the new head.
      const checks = [...world.fake.repo(REPO).checkRuns.values()].filter((c) => c.headSha === head);
      check(
        checks.some((c) => c.status === "completed" && c.conclusion === "success"),
        `a finished verdict check on the new queue head: ${JSON.stringify(checks.map((c) => [c.name, c.status, c.conclusion]))}`,
        world.runs,
      );
      const tracking = world.comments(1).filter((c) => c.body.startsWith(trackingMarker(id)));
      check(
        tracking.length === 1 && tracking[0]?.body.includes(`**Refreshed** onto \`main\` at \`${newMain.slice(0, 7)}\``) === true,
        "the tracking comment says the queue was refreshed onto the new main",
        world.runs,
      );
      for (const r of world.runs)
        for (const j of r.jobs) check(j.result === "success" || j.result === "skipped", `${j.name} of run ${r.id}: ${j.result}`, world.runs);

      // Nothing moved since: it says so and runs nothing.
      await world.comment({ as: MAINTAINER, body: "/naruto refresh", issue: pull.number });
      checkEqual(refreshes().length, 1, "refresh runs after a second /naruto refresh with nothing moved", world.runs);
      check(
        world
          .comments(pull.number)
          .some((c) => c.user.login === world.botLogin && c.body.includes(`nothing to refresh: \`main\` is still at \`${newMain.slice(0, 12)}\``)),
        "the App answered there is nothing to refresh",
        world.runs,
      );
      world.fake.assertNoViolations();
    }),
};
