/**
 * A pull request from a fork, through the App as its own process (issue 7, "Who may trigger"):
 * the fork's author may only read here, so their `/naruto review` gets one polite reply and runs
 * nothing; a maintainer's `/naruto <task>` on it is refused, as its result could only be
 * proposed into the fork; a maintainer's `/naruto review` runs the review job on the fork's head
 * (kept in this repository at `refs/pull/<n>/head`) and puts the verdict on the pull request and
 * a check run on its head. Nothing is written to the fork's side, and no pull request is opened.
 */
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import { markerFor } from "../../../src/github/index.ts";
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { verdictMarker } from "../../../src/report/index.ts";
import { MAINTAINER, REPO, withAppWorld } from "../support/app-world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const FORKER = "octo-forker";
const VERDICT = JSON.stringify({
  verdict: "request_changes",
  summary: "the heading loses the product's name",
  findings: [{ severity: "warning", message: "keep the name in the heading", path: "docs/api.md", line: 1 }],
});

const CONFIG = `version: 1
agents:
  default:
    command: "true"
  reviewer:
    command: ${JSON.stringify(`echo ${shellQuote(VERDICT)}`)}
arbiter:
  agent: reviewer
`;

export const appForkReview: Scenario = {
  name: "app-fork-review",
  run: () =>
    withAppWorld({ config: CONFIG, files: { "docs/api.md": "# Demo API\n" }, users: { [MAINTAINER]: "write", [FORKER]: "read" } }, async (world) => {
      const pull = await world.openPullRequest({ as: FORKER, branch: "heading", files: { "docs/api.md": "# API\n" }, title: "Shorter heading", fork: true });
      const head = await world.bareGit("rev-parse", `refs/pull/${pull}/head`);
      const refsBefore = await world.bareGit("for-each-ref", "--format=%(refname)");
      const replies = (commentId: number) =>
        world.comments(pull).filter((c) => c.user.login === world.botLogin && c.body.includes(markerFor(`reply:${commentId}`)));

      // The fork's author: one polite reply, nothing run.
      const byForker = await world.comment({ as: FORKER, body: "/naruto review", issue: pull });
      checkEqual(replies(byForker.commentId).length, 1, "replies to the fork's author");
      check(replies(byForker.commentId)[0]?.body.includes(`@${FORKER}`) === true, "the reply names who asked");

      // A maintainer's mission on the fork's branch: refused, nothing run.
      const task = await world.comment({ as: MAINTAINER, body: "/naruto shorten every heading", issue: pull });
      const taskReply = replies(task.commentId)[0]?.body ?? "";
      check(taskReply.includes("pull request from a fork"), `the reply to a mission on the fork says why: ${taskReply}`);
      checkEqual(world.fake.dispatches.length, 0, "dispatches before the review");
      checkEqual(await world.missionIds(), [], "missions before the review");

      // A maintainer's review: one run, on the fork's head.
      const review = await world.comment({ as: MAINTAINER, body: "/naruto review", issue: pull });
      const id = missionIdFor(REPO, review.commentId);
      const runs = await world.settle();
      checkEqual(
        runs.map((r) => r.event),
        ["workflow_dispatch"],
        "one run for the review",
        runs,
      );
      for (const r of runs) for (const j of r.jobs) check(j.result === "success" || j.result === "skipped", `${j.name} of run ${r.id}: ${j.result}`, runs);
      const reviewed = await world.mission(id);
      checkEqual(
        reviewed && [reviewed.kind, reviewed.status, reviewed.verdict?.verdict, reviewed.queue.head],
        ["review", "done", "request_changes", head],
        "the review-only mission on the fork's head",
        runs,
      );
      const verdicts = world.comments().filter((c) => c.body.startsWith(verdictMarker(id)));
      checkEqual(
        verdicts.map((c) => c.issueNumber),
        [pull],
        "the verdict comment (on the fork's pull request)",
        runs,
      );
      check(verdicts[0]?.body.includes("keep the name in the heading") === true, "the verdict carries the review agent's finding", runs);
      const repo = world.fake.repo(REPO);
      const checks = [...repo.checkRuns.values()].filter((c) => c.name === "naruto" && c.headSha === head);
      checkEqual(
        checks.map((c) => c.conclusion),
        ["failure"],
        "the verdict's check run on the fork's head",
        runs,
      );

      checkEqual(
        [...repo.pulls.values()].map((p) => p.number),
        [pull],
        "pull requests (the review opened none)",
        runs,
      );
      const refsAfter = (await world.bareGit("for-each-ref", "--format=%(refname)")).split("\n").filter((r) => !refsBefore.split("\n").includes(r));
      check(
        refsAfter.every((r) => r === `refs/heads/naruto/${id}` || r.startsWith("refs/heads/naruto-state/")),
        `the only new refs are the review's branch and naruto's state: ${refsAfter.join(", ")}`,
        runs,
      );
      checkEqual(await world.bareGit("rev-parse", `refs/pull/${pull}/head`), head, "the fork's head did not move", runs);
      world.fake.assertNoViolations();
    }),
};
