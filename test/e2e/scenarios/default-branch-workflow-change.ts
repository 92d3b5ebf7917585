/**
 * The default branch changes a workflow file while a mission runs, through the App (issue 33).
 * GitHub lets a token without the `workflows` permission (the App's, a job's `GITHUB_TOKEN`)
 * create no branch whose `.github/workflows/` differs from the default branch's, so every new
 * worker branch, built on the mission's base, is refused from then on (the fake's rule,
 * workflow-rule.ts). A two-item mission: `schema` is integrated, then `main` gains
 * `.github/workflows/lint.yml` before the publish job of `users`' run.
 *
 * Before the fix, the publish job failed on the queue branch it only meant to make sure of (GitHub
 * refused to create it at its lagging head, though it existed), in the work run and in the
 * integrate run after it; `users` stayed running with no branch and nobody was told. Now: `users`'
 * attempt fails without a retry (the retry would be refused the same way), the mission stops
 * (nothing new starts, what is integrated is reviewed as usual), the maintainer gets one reply on
 * the issue (what happened, why, that `/naruto refresh` cannot help, how to go on), every job
 * succeeds, and redelivering the webhooks changes nothing.
 */
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { workflowStopMarker } from "../../../src/action/integrate/workflow-stop.ts";
import { APP_CONFIG, TWO_ITEM_PLAN, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld, type AppWorld } from "../support/app-world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const WORKFLOW = ".github/workflows/lint.yml";
const LINT = "name: lint\non: workflow_dispatch\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm run lint\n";
/** Two attempts per item: a retry of `users` would be allowed, and must not be dispatched. */
const CONFIG = APP_CONFIG.replace("max_attempts: 1", "max_attempts: 2");

/** A maintainer's commit on `main` adding a workflow file (a person may: the rule binds tokens without the permission). */
async function changeMain(world: AppWorld): Promise<string> {
  const oldMain = await world.bareGit("rev-parse", "refs/heads/main");
  const tree = await world.rest<{ sha: string }>(MAINTAINER, "POST", `/repos/${REPO}/git/trees`, {
    base_tree: await world.bareGit("rev-parse", `${oldMain}^{tree}`),
    tree: [{ path: WORKFLOW, mode: "100644", type: "blob", content: LINT }],
  });
  const commit = await world.rest<{ sha: string }>(MAINTAINER, "POST", `/repos/${REPO}/git/commits`, {
    message: "Lint in CI",
    tree: tree.sha,
    parents: [oldMain],
  });
  await world.rest(MAINTAINER, "PATCH", `/repos/${REPO}/git/refs/heads/main`, { sha: commit.sha });
  return commit.sha;
}

export const defaultBranchWorkflowChange: Scenario = {
  name: "default-branch-workflow-change",
  run: async () => {
    let current: AppWorld | null = null;
    let changed: Promise<string> | null = null;
    await withAppWorld(
      {
        config: CONFIG,
        // Once `users`' leg has run, before its run's publish job pushes its worker branch.
        beforeJob: async (info) => {
          if (changed !== null || current === null || info.job !== "publish" || !String(info.trigger.inputs["items"] ?? "").includes('"users"')) return;
          changed = changeMain(current);
          await changed;
        },
      },
      async (world) => {
        current = world;
        const { commentId, delivery } = await world.comment({ as: MAINTAINER, body: withPlan("/naruto Build a tiny library", TWO_ITEM_PLAN) });
        const id = missionIdFor(REPO, commentId);
        await world.settle();
        check(changed !== null, "main changed during the mission", world.runs);
        const newMain = await (changed as unknown as Promise<string>);

        const mission = await world.mission(id);
        if (mission === null) throw new Error(`mission ${id} is not stored`);
        checkEqual(
          mission.items.map((i) => [i.id, i.status, i.attempts.length]),
          [
            ["schema", "integrated", 1],
            ["users", "failed", 1],
          ],
          "items (users' attempt is not retried: its retry would be refused the same way)",
          world.runs,
        );
        check(
          mission.items[1]?.reason?.includes(`the default branch's workflow file ${WORKFLOW} changed since the mission's base`) === true,
          `users' reason says why: ${mission.items[1]?.reason}`,
          world.runs,
        );
        checkEqual(mission.status, "done", "the mission is reviewed as usual, with what was integrated", world.runs);
        check(
          mission.reason?.startsWith("stopped: GitHub refuses every new branch of this mission") === true,
          `the mission's reason: ${mission.reason}`,
          world.runs,
        );
        for (const r of world.runs)
          for (const j of r.jobs) check(j.result === "success" || j.result === "skipped", `${j.name} of run ${r.id}: ${j.result}`, world.runs);
        checkEqual(
          world.fake.dispatches.filter((d) => d.inputs["phase"] === "work" && d.inputs["items"] !== "[]").map((d) => d.inputs["items"]),
          ['[{"item":"schema","attempt":1}]', '[{"item":"users","attempt":1}]'],
          "work runs dispatched (no retry of users)",
          world.runs,
        );

        // The refs: main is the maintainer's, the queue holds schema, users has no branch.
        checkEqual(await world.bareGit("rev-parse", "refs/heads/main"), newMain, "main");
        checkEqual(await world.bareGit("rev-parse", `refs/heads/naruto/${id}`), mission.queue.head, "the queue branch vs the state");
        checkEqual(
          (await world.bareGit("for-each-ref", "--format=%(refname)", `refs/heads/naruto/${id}--*`)).split("\n"),
          [`refs/heads/naruto/${id}--schema`],
          "worker branches",
        );

        // One reply on the issue, saying what happened, why and how to go on.
        // (Written by the publish job that met the refusal, as the workflow's token.)
        const replies = () => world.comments().filter((c) => c.body.includes(workflowStopMarker(id)));
        checkEqual(
          replies().map((c) => [c.issueNumber, c.user.login]),
          [[1, "github-actions[bot]"]],
          "naruto's replies about the refused branch",
          world.runs,
        );
        const reply = replies()[0]?.body ?? "";
        for (const words of [
          `GitHub refused to create the branch \`naruto/${id}--users\``,
          `\`${WORKFLOW}\``,
          "`workflows` permission",
          "1 of 2 items",
          "`/naruto refresh` cannot help",
          "merge the queue pull request as it is",
          "`naruto run`",
        ]) {
          check(reply.includes(words), `the reply says ${JSON.stringify(words)}: ${reply}`);
        }
        const pull = [...world.fake.repo(REPO).pulls.values()].find((p) => p.headRef === `naruto/${id}`);
        check(pull !== undefined, "the queue pull request is open with what was integrated");

        // A redelivery of every webhook changes nothing: no comment, ref, dispatch or state write.
        const snapshot = async () => ({
          comments: world.comments().map((c) => [c.id, c.body]),
          refs: await world.bareGit("for-each-ref", "--format=%(refname) %(objectname)"),
          dispatches: world.fake.dispatches.length,
          seq: (await world.mission(id))?.seq,
        });
        const before = await snapshot();
        for (const d of world.fake.deliveries.filter((x) => x.id === delivery.id || x.event === "workflow_run" || x.event === "workflow_job"))
          await world.redeliver(d.id);
        checkEqual(await world.settle(), [], "runs after the redeliveries");
        checkEqual(await snapshot(), before, "comments, refs, dispatches and state after the redeliveries");
        world.fake.assertNoViolations();
      },
    );
  },
};
