/**
 * Refresh on push, through the App (issue 37): with `queue.refresh: on_push`, `main` moves while
 * a finished mission's queue pull request is open and, without any comment, the App's `push`
 * handler asks for a refresh: the queue is replayed onto the new main, verified, and reviewed
 * again. A second push while that refresh runs starts no second run beside it: the running one
 * sees main moved again and hands over to the next, which ends on the newest main. Pushes that
 * cannot matter (another branch, a branch deleted, naruto's own state and queue branches) start
 * nothing, and once the config on main says `manual` again (the default), a push starts nothing.
 */
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { APP_CONFIG, ONE_ITEM_PLAN, checkFinished, checkRefreshedOnto, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld, type AppWorld } from "../support/app-world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const QUEUE = `queue:
  verify: "test ! -e BROKEN"
`;
const ON_PUSH = `${APP_CONFIG}${QUEUE}  refresh: on_push
`;

/** A commit on `branch` (REST, as a person's push) adding or changing `path`; returns its sha. */
export async function pushFile(world: AppWorld, branch: string, path: string, content: string): Promise<string> {
  const parent = await world.bareGit("rev-parse", `refs/heads/${branch}`);
  const tree = await world.rest<{ sha: string }>(MAINTAINER, "POST", `/repos/${REPO}/git/trees`, {
    base_tree: await world.bareGit("rev-parse", `${parent}^{tree}`),
    tree: [{ path, mode: "100644", type: "blob", content }],
  });
  const commit = await world.rest<{ sha: string }>(MAINTAINER, "POST", `/repos/${REPO}/git/commits`, {
    message: `Change ${path}`,
    tree: tree.sha,
    parents: [parent],
  });
  await world.rest(MAINTAINER, "PATCH", `/repos/${REPO}/git/refs/heads/${branch}`, { sha: commit.sha });
  await world.idle();
  return commit.sha;
}

export const refreshOnPush: Scenario = {
  name: "refresh-on-push",
  run: async () => {
    // Set once the first refresh run replayed the queue (before its publish job): main moves again.
    let whileRefreshing: (() => Promise<void>) | null = null;
    await withAppWorld(
      {
        config: ON_PUSH,
        pushWebhooks: true,
        beforeJob: async (info) => {
          if (info.trigger.inputs["phase"] !== "refresh" || !info.job.startsWith("publish") || whileRefreshing === null) return;
          const once = whileRefreshing;
          whileRefreshing = null;
          await once();
        },
      },
      async (world) => {
        const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan("/naruto Write a guide", ONE_ITEM_PLAN) });
        const id = missionIdFor(REPO, commentId);
        await world.settle();
        const before = await checkFinished(world, id, { items: ["guide"], files: ["docs/guide.md"] });
        const refreshes = () => world.fake.dispatches.filter((d) => d.inputs["mission"] === id && d.inputs["phase"] === "refresh");
        checkEqual(refreshes().length, 0, "refresh runs while the mission ran (naruto's own pushes all along)", world.runs);

        // Pushes that cannot matter: another branch, created, moved and deleted.
        await world.rest(MAINTAINER, "POST", `/repos/${REPO}/git/refs`, { ref: "refs/heads/topic", sha: before.base.commit });
        await pushFile(world, "topic", "TOPIC.md", "topic\n");
        await world.rest(MAINTAINER, "DELETE", `/repos/${REPO}/git/refs/heads/topic`);
        await world.idle();
        checkEqual(refreshes().length, 0, "refresh runs after pushes to another branch and its deletion", world.runs);

        // main moves, twice: the second time while the refresh run asked for by the first is under way.
        const firstMain = await pushFile(world, "main", "NEWS.md", "# News\n");
        checkEqual(
          refreshes().map((d) => d.actor),
          [world.botLogin],
          "refresh runs the App asked for on main's push, without any comment",
          world.runs,
        );
        let secondMain = "";
        whileRefreshing = async () => {
          secondMain = await pushFile(world, "main", "NEWS.md", "# News\n\nMore.\n");
          // The App saw that push while the refresh runs: it asked for nothing more.
          checkEqual(refreshes().length, 1, "refresh runs once main moved again during the first", world.runs);
        };
        await world.settle();
        check(secondMain !== "", "main moved again while the first refresh ran", world.runs);
        const { mission: after } = await checkRefreshedOnto(world, id, { from: before.base.commit, onto: secondMain });
        checkEqual(after.queue.refresh_requested, null, "no refresh under way at the end", world.runs);
        // Two refresh runs, one after the other: the second asked for by the first's publish job.
        checkEqual(refreshes().length, 2, "refresh runs in all", world.runs);
        const refreshRuns = world.runs.filter((r) => refreshes().some((d) => d.runId === r.id));
        checkEqual(refreshRuns.length, 2, "refresh runs run", world.runs);
        check(
          refreshes()[1]?.actor !== world.botLogin,
          `the second refresh run was asked for by the first's publish job (${refreshes()[1]?.actor})`,
          world.runs,
        );
        check(firstMain !== secondMain, "main moved twice", world.runs);
        for (const r of world.runs)
          for (const j of r.jobs) check(j.result === "success" || j.result === "skipped", `${j.name} of run ${r.id}: ${j.result}`, world.runs);

        // The default again (`manual`, in the pushed commit's config): that push and the next start nothing.
        const configPath = ".github/naruto.yml";
        await pushFile(world, "main", configPath, `${APP_CONFIG}${QUEUE}`);
        await pushFile(world, "main", "NEWS.md", "# News\n\nEven more.\n");
        await world.settle();
        checkEqual(refreshes().length, 2, "refresh runs after main moved with queue.refresh manual", world.runs);
        checkEqual((await world.mission(id))?.base.commit, secondMain, "the mission's base with queue.refresh manual", world.runs);
        world.fake.assertNoViolations();
      },
    );
  },
};
