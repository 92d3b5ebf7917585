/**
 * CI on the result (issue 33): `acme/demo` has a CI workflow of its own (`ci.yml`: a `test` job on
 * `pull_request`) and branch protection on `main` requiring the `test` check. GitHub starts no
 * workflow for what a job's `GITHUB_TOKEN` pushes or opens, so before naruto used another token
 * for the queue, its pull request never got CI and stayed blocked.
 *
 * - With the App: the App opens the queue pull request with its installation token (`opened`
 *   starts CI), and when the mission ends, closes and reopens it once (`reopened`), so `test`
 *   reports on the final head and the pull request is mergeable. The workflow is the one
 *   `naruto init --app` writes, with only NARUTO_BOT_LOGIN set (no NARUTO_APP): the publish jobs
 *   know the App from its login (before, they opened the pull request themselves with
 *   `GITHUB_TOKEN`, and their comments said there was no CI).
 * - The workflow alone, with a token that starts workflows (`ci-token`, here a maintainer's
 *   personal token): every queue push and the pull request run CI; the result's `test` reports.
 * - The workflow alone, without one: no CI; the pull request stays blocked, and the tracking and
 *   verdict comments say so and how to start it.
 * - Without the App, naruto's own comments are its jobs' `GITHUB_TOKEN`'s and start no
 *   `issue_comment` run: the mission never needs one (it goes on by `workflow_dispatch`).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { parseMarkedTemplate, renderMarkedTemplate } from "../../../src/setup/index.ts";
import { missionResult, trackingMarker, verdictMarker } from "../../../src/report/index.ts";
import type { FakeGitHub } from "../../support/fake-github/index.ts";
import { APP_CONFIG, TWO_ITEM_PLAN, checkFinished, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { REPO_ROOT, startWorld, type World } from "../support/world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const CI_WORKFLOW = `name: ci
on:
  pull_request:
  push:
    branches-ignore: ["naruto/**", "naruto-state/**", "naruto-attempts/**"]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: echo "tests pass on \${{ github.sha }}"
`;
const files = { ".github/workflows/ci.yml": CI_WORKFLOW };
const protect = (fake: FakeGitHub) => fake.setRequiredChecks(REPO, "main", ["test"]);

/** The queue pull request of mission `id` as GitHub shows it, with the check runs on its head. */
async function queuePull(
  fake: FakeGitHub,
  token: string,
  id: string,
): Promise<{ number: number; author: string; head: string; mergeable: string; checks: string[] }> {
  const pull = [...fake.repo(REPO).pulls.values()].find((p) => p.headRef === `naruto/${id}`);
  if (pull === undefined) throw new Error(`no queue pull request for ${id}`);
  const answer = (await (await fetch(`${fake.apiUrl}/repos/${REPO}/pulls/${pull.number}`, { headers: { authorization: `token ${token}` } })).json()) as {
    user: { login: string };
    head: { sha: string };
    mergeable_state: string;
  };
  const checks = [...fake.repo(REPO).checkRuns.values()]
    .filter((c) => c.headSha === answer.head.sha && c.name !== "naruto")
    .map((c) => `${c.name} ${c.conclusion ?? c.status}`);
  return { number: pull.number, author: answer.user.login, head: answer.head.sha, mergeable: answer.mergeable_state, checks };
}

async function workflowAlone(input: { ciToken: boolean }): Promise<void> {
  const world: World = await startWorld({
    config: APP_CONFIG,
    files,
    prepare: protect,
    ...(input.ciToken ? { secrets: (fake: FakeGitHub) => ({ NARUTO_CI_TOKEN: fake.tokenFor(MAINTAINER) }) } : {}),
  });
  try {
    const command = await world.comment(withPlan("/naruto Build the tiny library", TWO_ITEM_PLAN));
    check(command !== null, "the workflow did not run for the /naruto comment");
    const runs = [command, ...(await world.settle())];
    const [id] = await world.missionIds();
    check(id !== undefined, "no mission", runs);
    const mission = await world.mission(id);
    check(mission !== null && missionResult(mission).status === "done", `the mission is done: ${mission?.status ?? "none"}`, runs);
    // naruto's own comments (tracking, verdict) are its jobs' GITHUB_TOKEN's: on GitHub they start
    // no issue_comment run, and the mission above finished without one (it goes on by dispatches).
    const own = world.fake.repo(REPO).events.filter((e) => e.event === "issue_comment" && e.actor.login === "github-actions[bot]");
    check(own.length > 0 && own.every((e) => !e.startsWorkflows), `naruto's comments start no workflow: ${own.length} comments`, runs);
    checkEqual(await world.sim.runEvents({ events: ["issue_comment"] }), [], "issue_comment runs after the mission", runs);
    checkEqual(mission.queue.head, await world.bareGit("rev-parse", `refs/heads/naruto/${id}`), "queue head", runs);
    const pull = await queuePull(world.fake, world.maintainer, id);
    checkEqual(pull.head, mission.queue.head, "the queue pull request's head is the result", runs);
    const comments = [...world.fake.repo(REPO).comments.values()];
    const tracking = comments.find((c) => c.body.startsWith(trackingMarker(id)))?.body ?? "";
    const verdict = comments.find((c) => c.body.startsWith(verdictMarker(id)))?.body ?? "";
    if (input.ciToken) {
      checkEqual(pull.author, MAINTAINER, "the queue pull request was opened with the CI token", runs);
      checkEqual(pull.checks, ["test success"], "the CI's check on the result", runs);
      checkEqual(pull.mergeable, "clean", "the queue pull request's state (its required check reported)", runs);
      for (const text of [tracking, verdict])
        check(text.includes("the token that starts workflows (`ci-token`)"), `the comments say the CI runs with the token:\n${text}`, runs);
      check(
        runs.some((r) => r.event === "pull_request" && r.conclusion === "success"),
        "a pull_request run of ci.yml",
        runs,
      );
    } else {
      checkEqual(pull.author, "github-actions[bot]", "the queue pull request was opened with the workflow's token", runs);
      checkEqual(pull.checks, [], "CI checks on the result (none: GITHUB_TOKEN starts no workflow)", runs);
      checkEqual(pull.mergeable, "blocked", "the queue pull request's state (its required check pending)", runs);
      for (const text of [tracking, verdict]) {
        for (const words of [
          "No CI on the queue pull request",
          "GITHUB_TOKEN",
          "required checks stay pending",
          "close and reopen the pull request",
          "`ci-token`",
          "naruto App",
        ]) {
          check(text.includes(words), `the comments say ${JSON.stringify(words)}:\n${text}`, runs);
        }
      }
      checkEqual(runs.filter((r) => r.event === "pull_request" || r.event === "push").length, 0, "runs of ci.yml", runs);
    }
    world.fake.assertNoViolations();
  } finally {
    await world.close();
  }
}

export const resultCi: Scenario = {
  name: "result-ci",
  run: async () => {
    const template = await readFile(join(REPO_ROOT, "templates/naruto.yml"), "utf8");
    const appWorkflow = renderMarkedTemplate(parseMarkedTemplate(template, "templates/naruto.yml"), { yours: {}, app: true, stamp: "e2e (init --app)" });
    await withAppWorld({ config: APP_CONFIG, files, prepare: protect, workflow: appWorkflow, vars: { NARUTO_APP: "" } }, async (world) => {
      const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan("/naruto Build the tiny library", TWO_ITEM_PLAN) });
      const id = missionIdFor(REPO, commentId);
      await world.settle();
      const mission = await checkFinished(world, id, { items: ["schema", "users"], files: ["src/schema.js", "src/users.js"] });
      const pull = await queuePull(world.fake, world.tokenOf(MAINTAINER), id);
      checkEqual(pull.author, world.botLogin, "the queue pull request was opened by the App", world.runs);
      checkEqual(pull.head, mission.queue.head, "the queue pull request's head is the result", world.runs);
      checkEqual(pull.checks, ["test success"], "the CI's check on the result", world.runs);
      checkEqual(pull.mergeable, "clean", "the queue pull request's state (its required check reported)", world.runs);
      const byApp = world.fake
        .repo(REPO)
        .events.filter((e) => e.event === "pull_request" && e.actor.login === world.botLogin)
        .map((e) => e.action);
      check(byApp.includes("opened"), `the App opened the pull request: ${byApp.join(", ")}`, world.runs);
      const verdict = world.comments(pull.number).find((c) => c.body.startsWith(verdictMarker(id)))?.body ?? "";
      check(verdict.includes("**CI:** the naruto App opens the queue pull request"), `the verdict comment says the App starts CI:\n${verdict}`, world.runs);
      const tracking = world.comments(1).find((c) => c.body.startsWith(trackingMarker(id)))?.body ?? "";
      check(
        tracking.includes("**CI:** the naruto App opens the queue pull request") && !tracking.includes("No CI"),
        `the tracking comment says the App starts CI:\n${tracking}`,
        world.runs,
      );
    });
    await workflowAlone({ ciToken: true });
    await workflowAlone({ ciToken: false });
  },
};
