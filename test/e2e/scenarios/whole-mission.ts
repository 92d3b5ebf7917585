/**
 * Scenario (a): a whole mission through the workflow template and the bundled Action, from a
 * `/naruto` comment with a fenced plan (the `command` job) to the verdict comment. Six items
 * with dependencies, carried out by the demo agent, except one out-of-scope agent; one item
 * breaks the queue's verify command. Checked from what the fake GitHub holds: the queue branch,
 * its commits, the queue pull request, the tracking and verdict comments, the check run, and
 * the mission state read through the GitHub mission store.
 */
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import { missionResult } from "../../../src/report/index.ts";
import { trackingMarker, verdictMarker } from "../../../src/report/index.ts";
import { fakeAgentCommand, TEST_AGENT_READ } from "../../support/agents/index.ts";
import { REPO, REPO_ROOT, startWorld } from "../support/world.ts";
import { bwrapSkipReason } from "../../support/sandbox.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const demoAgent = `${shellQuote(process.execPath)} ${shellQuote(`${REPO_ROOT}src/agent/demo-agent.mjs`)}`;

export const CONFIG = `version: 1
agents:
  default:
    command: ${JSON.stringify(demoAgent)}
    read: ${TEST_AGENT_READ}
    timeout: 2m
  rogue:
    command: ${JSON.stringify(fakeAgentCommand("out-of-scope"))}
    read: ${TEST_AGENT_READ}
queue:
  verify: "! grep -rq 'BREAK THE BUILD' src"
  batch: 4
limits:
  max_parallel: 4
  max_attempts: 1
  item_timeout: 5m
`;

const PLAN = `version: 1
title: A tiny library
items:
  - id: schema
    title: The record schema
    writes: [src/schema.js]
    prompt: |
      create src/schema.js "export const fields = [\\"id\\", \\"name\\"];\\n"
  - id: users
    title: Users built on the schema
    after: [schema]
    writes: [src/users.js]
    prompt: |
      create src/users.js "import { fields } from \\"./schema.js\\";\\nexport const users = fields;\\n"
  - id: orders
    title: Orders built on the schema
    after: [schema]
    writes: [src/orders.js]
    prompt: |
      create src/orders.js "import { fields } from \\"./schema.js\\";\\nexport const orders = fields;\\n"
  - id: docs
    title: A guide
    writes: [docs/]
    prompt: |
      create docs/guide.md "# Guide\\n"
  - id: rogue
    title: An agent that writes outside its paths
    agent: rogue
    writes: [src/rogue.js]
  - id: breaker
    title: A change that breaks the queue's check
    after: [users]
    writes: [src/breaker.js]
    prompt: |
      create src/breaker.js "// BREAK THE BUILD\\n"
`;

export const wholeMission: Scenario = {
  name: "whole-mission",
  run: async () => {
    const world = await startWorld({ config: CONFIG });
    try {
      const command = await world.comment(`/naruto Build the tiny library\n\n\`\`\`naruto\n${PLAN}\`\`\`\n`);
      check(command !== null, "the workflow did not run for the /naruto comment");
      const jobs = (r: typeof command) => r.jobs.map((j) => `${j.job}:${j.result}`);
      checkEqual(
        jobs(command),
        ["command:success", "plan:skipped", "work:skipped", "watch:skipped", "review:skipped", "queue:skipped", "publish:skipped", "sweep:skipped"],
        "the comment's run",
        [command],
      );
      const runs = [command, ...(await world.settle(80))];

      const ids = await world.missionIds();
      checkEqual(ids.length, 1, "missions stored", runs);
      const id = ids[0] ?? "";
      const mission = await world.mission(id);
      check(mission !== null, `mission ${id} is not stored`, runs);
      const result = missionResult(mission);
      const status = Object.fromEntries(result.items.map((i) => [i.id, i.status]));
      checkEqual(
        status,
        { schema: "integrated", users: "integrated", orders: "integrated", docs: "integrated", rogue: "out_of_scope", breaker: "failed" },
        "item statuses",
        runs,
      );
      checkEqual(result.status, "done", "mission status", runs);
      check(
        result.verdict !== null && result.verdict !== "approve",
        `verdict ${String(result.verdict)}: a mission with an out-of-scope and a failed item is not approved`,
        runs,
      );
      const reason = (item: string) => result.items.find((i) => i.id === item)?.reason ?? "";
      check(reason("rogue").includes("outside-rogue.txt"), `rogue's reason names the path outside: ${reason("rogue")}`, runs);
      check(reason("breaker").includes("verif"), `breaker's reason is the queue verification: ${reason("breaker")}`, runs);
      check(result.queue.verify_runs >= 2, `verify runs ${result.queue.verify_runs}`, runs);
      for (const r of runs) for (const j of r.jobs) check(j.result === "success" || j.result === "skipped", `${j.name} of run ${r.id}: ${j.result}`, runs);
      // Each agent ran in the sandbox (bubblewrap, in the job's machine), after the sandbox step.
      const workJobs = runs.flatMap((r) => r.jobs).filter((j) => j.job === "work" && j.result === "success");
      check(workJobs.length >= 6, `work jobs: ${workJobs.length}`, runs);
      const expectSandbox = bwrapSkipReason === null ? "run in the sandbox: bwrap" : "run without a sandbox";
      for (const j of workJobs) {
        const names = j.steps.map((s) => s.name);
        check(
          names.indexOf("naruto sandbox") !== -1 && names.indexOf("naruto sandbox") < names.indexOf("naruto agent"),
          `${j.name}: the sandbox step comes before the agent's: ${names.join(", ")}`,
          runs,
        );
        check(j.steps.find((s) => s.name === "naruto agent")?.log.includes(expectSandbox) === true, `${j.name}: the agent step says "${expectSandbox}"`, runs);
      }

      // The queue branch: one commit per integrated item, dependencies first, nothing else.
      const queue = `refs/heads/naruto/${id}`;
      const head = await world.bareGit("rev-parse", queue);
      checkEqual(head, result.queue.head, "queue head on GitHub vs the state", runs);
      const items = (await world.bareGit("log", "--reverse", "--format=%(trailers:key=Naruto-Item,valueonly,separator=)", `${mission.base.commit}..${queue}`))
        .split("\n")
        .filter((l) => l !== "");
      checkEqual([...items].sort(), ["docs", "orders", "schema", "users"], "items on the queue", runs);
      check(
        items.indexOf("schema") < items.indexOf("users") && items.indexOf("schema") < items.indexOf("orders"),
        `schema lands before its dependents: ${items.join(", ")}`,
        runs,
      );
      const files = (await world.bareGit("ls-tree", "-r", "--name-only", queue)).split("\n");
      for (const f of ["src/schema.js", "src/users.js", "src/orders.js", "docs/guide.md"]) check(files.includes(f), `${f} is on the queue`, runs);
      for (const f of ["src/breaker.js", "outside-rogue.txt", "src/rogue.js"]) check(!files.includes(f), `${f} must not be on the queue`, runs);
      checkEqual(
        await world.bareGit("show", `${queue}:src/users.js`),
        'import { fields } from "./schema.js";\nexport const users = fields;',
        "src/users.js",
        runs,
      );
      const usersBase = mission.items.find((i) => i.id === "users")?.attempts[0]?.base ?? "";
      const schemaCommit = result.items.find((i) => i.id === "schema")?.commit ?? "";
      check(
        await world.bareGit("merge-base", "--is-ancestor", schemaCommit, usersBase).then(
          () => true,
          () => false,
        ),
        "users started from a queue head that holds schema",
        runs,
      );

      // The queue pull request, the tracking comment, the verdict comment and check.
      const repo = world.fake.repo(REPO);
      const pulls = [...repo.pulls.values()].filter((p) => p.headRef === `naruto/${id}`);
      checkEqual(
        pulls.map((p) => p.baseRef),
        ["main"],
        "queue pull requests",
        runs,
      );
      const pull = pulls[0];
      const comments = [...repo.comments.values()];
      const tracking = comments.filter((c) => c.issueNumber === 1 && c.body.startsWith(trackingMarker(id)));
      checkEqual(tracking.length, 1, "tracking comments on the issue", runs);
      for (const item of Object.keys(status)) check(tracking[0]?.body.includes(item) === true, `the tracking comment shows ${item}`, runs);
      const verdict = comments.filter((c) => c.body.startsWith(verdictMarker(id)));
      checkEqual(
        verdict.map((c) => c.issueNumber),
        [pull?.number],
        "verdict comments (on the queue pull request)",
        runs,
      );
      check(verdict[0]?.body.includes(`naruto verdict: ${result.verdict}`) === true, "the verdict comment states the verdict", runs);
      const checks = [...repo.checkRuns.values()].filter((c) => c.headSha === head && c.name === "naruto");
      checkEqual(
        checks.map((c) => c.conclusion),
        ["failure"],
        "verdict check runs on the queue head",
        runs,
      );
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
