/**
 * Scenario: a mission started by the clock. The config lists a schedule that fired a minute ago
 * with a plan file; the workflow's `schedule` event runs the `sweep` job, which opens the
 * mission's issue and starts it; the dispatched runs carry it to the verdict. A second sweep
 * starts nothing again. Checked from what the fake GitHub holds.
 */
import { TEST_AGENT_READ } from "../../support/agents/index.ts";
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import { scheduledMissionId } from "../../../src/github-driver/schedules.ts";
import { missionResult, trackingMarker, verdictMarker } from "../../../src/report/index.ts";
import { REPO, REPO_ROOT, startWorld } from "../support/world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const demoAgent = `${shellQuote(process.execPath)} ${shellQuote(`${REPO_ROOT}src/agent/demo-agent.mjs`)}`;

const PLAN = `version: 1
title: Nightly notes
items:
  - id: notes
    title: The notes
    writes: [docs/notes.md]
    prompt: |
      create docs/notes.md "# Notes\\n"
  - id: index
    title: An index of the notes
    after: [notes]
    writes: [docs/index.md]
    prompt: |
      create docs/index.md "- [Notes](notes.md)\\n"
`;

export const scheduledMission: Scenario = {
  name: "scheduled-mission",
  run: async () => {
    // A daily firing one minute ago (UTC), inside the sweep's window.
    const firing = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000);
    const config = `version: 1
agents:
  default:
    command: ${JSON.stringify(demoAgent)}
    read: ${TEST_AGENT_READ}
limits:
  max_attempts: 1
schedules:
  - name: nightly
    cron: "${firing.getUTCMinutes()} ${firing.getUTCHours()} * * *"
    plan: .github/naruto/nightly.yml
`;
    const world = await startWorld({ config, files: { ".github/naruto/nightly.yml": PLAN } });
    try {
      const sweep = await world.sim.trigger({ event: "schedule" });
      check(sweep !== null, "the workflow did not run for the schedule");
      const jobs = (r: typeof sweep) => r.jobs.filter((j) => j.result !== "skipped").map((j) => `${j.job}:${j.result}`);
      checkEqual(jobs(sweep), ["sweep:success"], "the schedule's run", [sweep]);
      const runs = [sweep, ...(await world.settle(30))];

      const id = scheduledMissionId(REPO, "nightly", firing);
      checkEqual(await world.missionIds(), [id], "missions stored", runs);
      const mission = await world.mission(id);
      check(mission !== null && mission.source.kind === "github", `mission ${id} is not stored`, runs);
      const result = missionResult(mission);
      checkEqual(result.status, "done", "mission status", runs);
      checkEqual(result.verdict, "approve", "verdict", runs);
      checkEqual(
        result.items.map((i) => [i.id, i.status]),
        [
          ["notes", "integrated"],
          ["index", "integrated"],
        ],
        "items",
        runs,
      );

      const repo = world.fake.repo(REPO);
      const issue = repo.issues.get(mission.source.issue);
      check(issue !== undefined && !issue.isPull, "the mission's issue exists", runs);
      check(issue.title.startsWith("naruto: nightly ("), `issue title ${issue.title}`, runs);
      checkEqual(issue.user.login, "github-actions[bot]", "the issue's author", runs);
      const comments = [...repo.comments.values()];
      checkEqual(
        comments.filter((c) => c.issueNumber === issue.number && c.body.startsWith(trackingMarker(id))).length,
        1,
        "tracking comments on the issue",
        runs,
      );
      const pulls = [...repo.pulls.values()].filter((p) => p.headRef === `naruto/${id}`);
      checkEqual(
        pulls.map((p) => p.baseRef),
        ["main"],
        "queue pull requests",
        runs,
      );
      checkEqual(
        comments.filter((c) => c.body.startsWith(verdictMarker(id))).map((c) => c.issueNumber),
        [pulls[0]?.number],
        "verdict comment on the queue pull request",
        runs,
      );
      const files = (await world.bareGit("ls-tree", "-r", "--name-only", `refs/heads/naruto/${id}`)).split("\n");
      for (const f of ["docs/notes.md", "docs/index.md"]) check(files.includes(f), `${f} is on the queue`, runs);

      // The same firing seen by a second sweep: nothing new.
      const issues = repo.issues.size;
      const dispatches = world.fake.dispatches.length;
      const again = await world.sim.trigger({ event: "schedule" });
      check(again !== null && jobs(again).join() === "sweep:success", "the second sweep ran", [again ?? sweep]);
      checkEqual(
        [repo.issues.size, world.fake.dispatches.length, (await world.missionIds()).length],
        [issues, dispatches, 1],
        "issues, dispatches and missions after a second sweep",
        [again],
      );
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
