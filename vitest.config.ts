import { readFile } from "node:fs/promises";
import { defineConfig, type Plugin } from "vitest/config";

/**
 * The longest suites (whole missions through the Action's jobs against the fake GitHub, every
 * hostile agent, every forged checkpoint, the store's many-writer races): `npm run test:slow`
 * runs them alone, `.ci/run` runs them too, and `npm test` leaves them out so that it stays
 * within about five minutes on a 2-core machine.
 */
export const SLOW_SUITES = [
  "test/action/queue-publish.git.test.ts",
  "test/action/tamper.git.test.ts",
  "test/action/mission.git.test.ts",
  "test/action/gate-recheck.git.test.ts",
  "test/action/agent-log.git.test.ts",
  "test/action/redaction.git.test.ts",
  "test/local/hostile-agents.git.test.ts",
  "test/local/hostile-doors.git.test.ts",
  "test/local/hostile-gate.git.test.ts",
  "test/local/hostile-network.git.test.ts",
  "test/local/hostile-limits.git.test.ts",
  "test/local/cli-resume.git.test.ts",
  "test/github/mission-store.test.ts",
  "src/gate/gate.git.test.ts",
  "test/local/cli-errors.git.test.ts",
  "test/local/cli-endpoints.git.test.ts",
  "test/local/cli-stop.git.test.ts",
  "test/local/cli-first-run.git.test.ts",
  "src/report/github-render.svg.test.ts",
  "test/demo-example.test.ts",
  "test/local/mission-failures.git.test.ts",
  "test/github/faults.test.ts",
  "test/local/cli-cancel.git.test.ts",
  "src/store/git-store.git.test.ts",
  "src/queue/property.git.test.ts",
  "test/action/integrate-run.git.test.ts",
  "test/local/queue-trust.git.test.ts",
  "test/local/flaky-verify.git.test.ts",
  "test/action/refresh-run.git.test.ts",
  "test/action/workflow-change.git.test.ts",
];

/**
 * GitHub's workflow parser (the Actions simulator's) imports its JSON schemas without
 * `with { type: "json" }`, which Node 20 refuses: vitest must inline it, so that vite transforms
 * those imports (under `node --import tsx`, tsx does). Inlined, vite would also follow the
 * package's sourcemaps to sources it does not ship and warn once per file; this loads its files
 * without them.
 */
const WORKFLOW_PARSER = /\/node_modules\/@actions\/workflow-parser\/dist\/.*\.js$/;
const workflowParserWithoutSourcemaps: Plugin = {
  name: "workflow-parser-without-sourcemaps",
  enforce: "pre",
  load: async (id) => (WORKFLOW_PARSER.test(id) ? (await readFile(id, "utf8")).replace(/^\/\/# sourceMappingURL=.*$/m, "") : null),
};

const ALL = ["src/**/*.test.ts", "test/**/*.test.ts"];
const slowOnly = process.env["NARUTO_TEST_SET"] === "slow";

export default defineConfig({
  plugins: [workflowParserWithoutSourcemaps],
  test: {
    include: slowOnly ? SLOW_SUITES : ALL,
    exclude: slowOnly ? [] : ["**/node_modules/**", ...SLOW_SUITES],
    // Git suites spawn real processes on a 2-core machine: keep parallelism modest and
    // give them room; no test asserts on wall-clock time.
    maxWorkers: 2,
    server: { deps: { inline: ["@actions/workflow-parser"] } },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
