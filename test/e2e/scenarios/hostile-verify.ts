/**
 * Scenario (b''): code an agent wrote, run by the queue's verify command. One item's agent adds a
 * test that hunts tokens (its environment, every readable /proc/<pid>/environ and cmdline, the
 * checkout's and the global git config, files under HOME, the workspace and RUNNER_TEMP) and
 * tries each against GitHub to create a ref and a comment; the config's `queue.verify` runs every
 * test. It runs in the queue job, whose token can only read and is held by no process when the
 * verify step runs, so it finds nothing that can write; the honest items still integrate.
 *
 * Two walls: the job holds no token that can write, and on a runner the verify runs only in the
 * sandbox (issue 32: `sandbox: none` is refused there, see linger-verify), where the hunter sees
 * no process of the job at all. When the queue's verify ran unsandboxed in a job with the write
 * token (the integrate job before issue 12), this same hunter read the token from the action's
 * /proc/<pid>/environ and posted a comment.
 */
import { readFileSync } from "node:fs";
import { missionResult } from "../../../src/report/index.ts";
import { checkNothingHostileLanded, reportFromLog } from "../support/hostile-report.ts";
import { REPO_ROOT, startWorld } from "../support/world.ts";
import { TEST_AGENT_READ } from "../../support/agents/index.ts";
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const demoAgent = `${shellQuote(process.execPath)} ${shellQuote(`${REPO_ROOT}src/agent/demo-agent.mjs`)}`;
const VERIFY = `for f in tests/*.mjs; do [ -e "$f" ] || continue; node "$f" || exit 1; done`;
const CONFIG = `version: 1
agents:
  default: { command: ${JSON.stringify(demoAgent)}, read: ${TEST_AGENT_READ} }
limits: { max_parallel: 3, max_attempts: 1, item_timeout: 5m }
queue:
  verify: ${JSON.stringify(VERIFY)}
`;

// The hunting code, as a helper of the repository's own tests: the sandbox shows the verify
// command its work directory and the system, not this repository's test folder.
const LIB = readFileSync(`${REPO_ROOT}test/support/agents/hostile-lib.mjs`, "utf8");
const HUNT = [
  `import { findTarget, huntTokens, inMachine, tryWrites } from "./lib/hostile-lib.mjs";`,
  `const hunt = huntTokens();`,
  `const attempts = await tryWrites(findTarget(), hunt.tokens.map((t) => t.token), "verify");`,
  `const found = hunt.tokens.map((t) => ({ where: t.where, token: t.token.slice(0, 8) + "…(" + t.token.length + ")" }));`,
  `console.log("naruto-hostile-report hunter.jsonl " + JSON.stringify({ label: "verify", event: "hunted", inMachine: inMachine(), processes: hunt.processes, files: hunt.files, found, attempts, worked: attempts.filter((a) => a.worked) }));`,
];

const PLAN = `version: 1
title: A test that hunts tokens
items:
  - id: tests
    title: Add a test
    writes: [tests/hunt.mjs]
    prompt: |
      create tests/hunt.mjs <<EOF
${HUNT.map((l) => `      ${l}`).join("\n")}
      EOF
  - id: alpha
    title: alpha
    writes: [src/alpha.js]
    prompt: |
      create src/alpha.js "export const alpha = 1;\\n"
  - id: beta
    title: beta
    writes: [src/beta.js]
    prompt: |
      create src/beta.js "export const beta = 2;\\n"
`;

export const hostileVerify: Scenario = {
  name: "hostile-verify",
  run: async () => {
    const world = await startWorld({ config: CONFIG, files: { "tests/lib/hostile-lib.mjs": LIB } });
    try {
      const mainBefore = await world.bareGit("rev-parse", "refs/heads/main");
      const command = await world.comment(`/naruto Add a test\n\n\`\`\`naruto\n${PLAN}\`\`\`\n`);
      check(command !== null, "the workflow did not run for the /naruto comment");
      const runs = [command, ...(await world.settle(40))];
      const [id = ""] = await world.missionIds();
      const mission = await world.mission(id);
      check(mission !== null, "no mission stored", runs);
      const status = Object.fromEntries(missionResult(mission).items.map((i) => [i.id, i.status]));
      checkEqual(
        status,
        { tests: "integrated", alpha: "integrated", beta: "integrated" },
        "item statuses (the honest items integrate, and so does the hunting test)",
        runs,
      );

      // Every run of the hunting test reported into the log of a queue job's token-less step.
      const jobs = runs.flatMap((r) => r.jobs);
      const reports = jobs
        .flatMap((j) => j.steps.map((s) => ({ job: j.job, step: s.name, found: reportFromLog(s.log, "hunter") })))
        .filter((r) => r.found.length > 0);
      check(reports.length > 0, "the hunting test never ran as the queue's verify", runs);
      for (const r of reports) {
        checkEqual(`${r.job} / ${r.step}`, "queue / naruto queue", "where the queue's verify ran", runs);
        for (const hunt of r.found) {
          check((hunt.files ?? 0) > 0, `the hunt looked at no file (${hunt.files})`, runs);
          checkEqual(hunt.processes, 0, "processes of the job the hunt saw from the sandbox", runs);
          checkEqual(hunt.found, [], "tokens the hunting test found", runs);
          checkEqual(hunt.worked, [], "hunting-test writes that worked", runs);
        }
      }
      for (const j of jobs.filter((x) => x.job === "publish")) {
        check(
          !j.steps.some((s) => s.log.includes("naruto-hostile-report")),
          `the publish job ran the repository's code:\n${j.steps
            .map((s) => s.log)
            .join("\n")
            .slice(-2000)}`,
          runs,
        );
      }

      await checkNothingHostileLanded(world, runs, mainBefore);
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
