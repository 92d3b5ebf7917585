import { defineConfig } from "vitest/config";

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
  "test/local/cli-resume.git.test.ts",
  "test/github/mission-store.test.ts",
  "src/git/gate.git.test.ts",
];

const ALL = ["src/**/*.test.ts", "test/**/*.test.ts"];
const slowOnly = process.env["NARUTO_TEST_SET"] === "slow";

export default defineConfig({
  test: {
    include: slowOnly ? SLOW_SUITES : ALL,
    exclude: slowOnly ? [] : ["**/node_modules/**", ...SLOW_SUITES],
    // Git suites spawn real processes on a 2-core machine: keep parallelism modest and
    // give them room; no test asserts on wall-clock time.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
