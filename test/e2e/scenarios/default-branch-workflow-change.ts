/**
 * The default branch changes a workflow file while a mission runs (issue 33), with the App and
 * then without it (the workflow's command job takes the comment).
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
 * succeeds, and (with the App) redelivering the webhooks changes nothing.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { workflowStopMarker } from "../../../src/action/integrate/workflow-stop.ts";
import { gitText } from "../../../src/git/run-git.ts";
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import type { Mission } from "../../../src/mission/index.ts";
import type { JobHookInfo, RunResult } from "../../support/actions-sim/index.ts";
import type { FakeGitHub } from "../../support/fake-github/index.ts";
import { testGit } from "../../support/git-repo.ts";
import { APP_CONFIG, TWO_ITEM_PLAN, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { startWorld } from "../support/world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const WORKFLOW = ".github/workflows/lint.yml";
const LINT = "name: lint\non: workflow_dispatch\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm run lint\n";
const git = testGit();
const PERSON = { GIT_AUTHOR_NAME: "Maintainer", GIT_AUTHOR_EMAIL: "m@example.test", GIT_COMMITTER_NAME: "Maintainer", GIT_COMMITTER_EMAIL: "m@example.test" };
const REQUEST = withPlan("/naruto Build a tiny library", TWO_ITEM_PLAN);
/** Two attempts per item: a retry of `users` would be allowed, and must not be dispatched. */
const CONFIG = APP_CONFIG.replace("max_attempts: 1", "max_attempts: 2");

/** A maintainer's push to `main` adding a workflow file (a person may: the rule binds tokens without the permission). */
async function changeMain(fake: FakeGitHub): Promise<string> {
  const dir = fake.repo(REPO).dir;
  const env = { ...PERSON, GIT_INDEX_FILE: join(dir, "lint.index") };
  const run = (args: string[], input?: string) => gitText(git, { args, cwd: dir, env, ...(input === undefined ? {} : { input }) });
  const main = await run(["rev-parse", "refs/heads/main"]);
  const blob = await run(["hash-object", "-w", "--stdin"], LINT);
  await run(["read-tree", main]);
  await run(["update-index", "--add", "--cacheinfo", `100644,${blob},${WORKFLOW}`]);
  const commit = await run(["commit-tree", await run(["write-tree"]), "-p", main, "-m", "Lint in CI"]);
  await run(["update-ref", "refs/heads/main", commit, main]);
  await rm(join(dir, "lint.index"), { force: true });
  return commit;
}

/** What both modes must end with: the shared view of a world. */
interface Seen {
  readonly fake: FakeGitHub;
  readonly runs: readonly RunResult[];
  mission(id: string): Promise<Mission | null>;
  bareGit(...args: string[]): Promise<string>;
}

/** Changes main once, before the publish job of `users`' run (its leg has run; its worker branch is not pushed yet). */
function changeBeforeUsersPublish(fake: () => FakeGitHub | null): { hook: (info: JobHookInfo) => Promise<void>; changed: () => Promise<string> | null } {
  let changed: Promise<string> | null = null;
  return {
    hook: async (info) => {
      const f = fake();
      if (changed !== null || f === null || info.job !== "publish" || !String(info.trigger.inputs["items"] ?? "").includes('"users"')) return;
      changed = changeMain(f);
      await changed;
    },
    changed: () => changed,
  };
}

async function checkStopped(world: Seen, id: string, changed: Promise<string> | null): Promise<void> {
  check(changed !== null, "main changed during the mission", world.runs);
  const newMain = await changed;
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
  check(mission.reason?.startsWith("stopped: GitHub refuses every new branch of this mission") === true, `the mission's reason: ${mission.reason}`, world.runs);
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
  // One reply on the issue, written by the publish job that met the refusal, as the workflow's token.
  const replies = [...world.fake.repo(REPO).comments.values()].filter((c) => c.body.includes(workflowStopMarker(id)));
  checkEqual(
    replies.map((c) => [c.issueNumber, c.user.login]),
    [[1, "github-actions[bot]"]],
    "naruto's replies about the refused branch",
    world.runs,
  );
  const reply = replies[0]?.body ?? "";
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
}

export const defaultBranchWorkflowChange: Scenario = {
  name: "default-branch-workflow-change",
  run: async () => {
    // With the App.
    let appFake: FakeGitHub | null = null;
    const app = changeBeforeUsersPublish(() => appFake);
    await withAppWorld({ config: CONFIG, beforeJob: app.hook }, async (world) => {
      appFake = world.fake;
      const { commentId, delivery } = await world.comment({ as: MAINTAINER, body: REQUEST });
      const id = missionIdFor(REPO, commentId);
      await world.settle();
      await checkStopped(world, id, app.changed());
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
    });

    // Without the App: the workflow's command job takes the comment, the jobs do the rest.
    let actionFake: FakeGitHub | null = null;
    const action = changeBeforeUsersPublish(() => actionFake);
    const world = await startWorld({ config: CONFIG, beforeJob: action.hook });
    try {
      actionFake = world.fake;
      const command = await world.comment(REQUEST);
      check(command !== null, "the workflow did not run for the /naruto comment");
      const runs = [command, ...(await world.settle())];
      const [id] = await world.missionIds();
      check(id !== undefined, "no mission", runs);
      await checkStopped({ fake: world.fake, runs, mission: (m) => world.mission(m), bareGit: (...args) => world.bareGit(...args) }, id, action.changed());
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
