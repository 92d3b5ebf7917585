/**
 * A queue that blames only the guilty (issue 37), whole local missions with real git and a
 * scripted verify (verify-tests.mjs): a red base stops integration and names the base; deleting
 * or skipping tests is a `tests_weakened` finding; a test report of no test is red; a batch that
 * skips tests is a finding that names the item. (A verify that fails one run in five:
 * flaky-verify.git.test.ts.) Each failed on the queue before it (see the closing note).
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { shellQuote } from "../../src/agent/shell-quote.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { itemOf, queueCommits, runMission, type ItemSpec } from "./local-fixture.ts";

const VERIFY = fileURLToPath(new URL("./verify-tests.mjs", import.meta.url));
const verify = (...args: string[]) => [process.execPath, VERIFY, ...args].map(shellQuote).join(" ");

const TESTS = {
  "test/a.test.js": "it('adds', () => {});\nit('subtracts', () => {});\n",
  "test/b.test.js": "it('multiplies', () => {});\nit('divides', () => {});\n",
};

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function repo(files: Record<string, string> = {}): Promise<TestRepo> {
  const r = await createTestRepo({ "README.md": "# app\n", ...TESTS, ...files });
  cleanup.push(() => r.remove());
  return r;
}

const good = (n: number): ItemSpec[] => Array.from({ length: n }, (_, i) => ({ id: `good-${i}` }));

describe("a queue that blames only the guilty", () => {
  it("stops on a red base, names it and shows its output, and blames no agent", async () => {
    const r = await repo({ BROKEN: "the base does not build\n" });
    const base = await r.run("rev-parse", "HEAD");
    const m = await runMission(r, good(3), { verify: verify("--red-if-exists", "BROKEN"), maxAttempts: 1, sandbox: "none" });

    expect(m.status).toBe("failed");
    expect(m.reason).toContain("the base is red");
    expect(m.reason).toContain(base.slice(0, 12));
    expect(m.reason).toContain("verify: BROKEN breaks the build");
    // Red twice (confirmed like any suspect) before it stops anything.
    expect(m.queue.base_check).toMatchObject({ commit: base, green: false, exit_code: 1, runs: [false, false] });
    for (const i of m.items) {
      expect(i.status, i.reason ?? "").toBe("cancelled");
      expect(i.attempts.map((a) => a.status)).not.toContain("verify_failed");
    }
    expect(await queueCommits(r, m)).toEqual([]);
    // The base ran, nothing else.
    expect(m.queue.verify_runs).toBe(2);
  });

  it("finds tests_weakened: an item that deletes test/a.test.js, another that adds it.skip", async () => {
    const r = await repo();
    const m = await runMission(
      r,
      [
        { id: "gut", writes: ["test/a.test.js"], edits: { "test/a.test.js": null } },
        { id: "skipper", writes: ["test/b.test.js"], edits: { "test/b.test.js": "it('multiplies', () => {});\nit.skip('divides', () => {});\n" } },
        { id: "honest", writes: ["src/honest/"] },
      ],
      { verify: verify(), maxAttempts: 1, sandbox: "none" },
    );
    expect(m.items.map((i) => i.status)).toEqual(["integrated", "integrated", "integrated"]);
    const weakened = (m.verdict?.findings ?? []).filter((f) => f.rule === "tests_weakened");
    expect(weakened.map((f) => [f.severity, f.path, f.line])).toEqual([
      ["error", "test/a.test.js", null],
      ["error", "test/b.test.js", 2],
    ]);
    expect(weakened[0]?.message).toContain('item "gut" deletes the test file test/a.test.js');
    expect(weakened[1]?.message).toContain('item "skipper" adds `it.skip(`');
    expect(m.verdict?.verdict).toBe("request_changes");
  });

  it("a verify whose JUnit report lists no test is red: the item that removed every test is blamed, with why", async () => {
    const r = await repo();
    const m = await runMission(r, [{ id: "gut", writes: ["test/"], edits: { "test/a.test.js": null, "test/b.test.js": null } }, { id: "fine" }], {
      verify: verify("--report", "reports/junit.xml"),
      maxAttempts: 1,
      sandbox: "none",
      queue: { verify_report: "reports/junit.xml" },
    });
    expect(m.queue.base_check).toMatchObject({ green: true, report: { tests: 4, skipped: 0 } });
    expect(itemOf(m, "fine").status).toBe("integrated");
    const gut = itemOf(m, "gut");
    expect(gut.status).toBe("failed");
    expect(gut.reason).toContain("the verify ran no test");
    expect(m.queue.report).toMatchObject({ tests: 4 });
  });

  it("a batch that skips tests the head ran is a finding that names the item, from the test report", async () => {
    const r = await repo();
    const m = await runMission(
      r,
      [{ id: "skipper", writes: ["test/b.test.js"], edits: { "test/b.test.js": "it('multiplies', () => {});\nit.skip('divides', () => {});\n" } }],
      { verify: verify("--report", "reports/junit.xml"), maxAttempts: 1, sandbox: "none", queue: { verify_report: "reports/junit.xml" } },
    );
    expect(itemOf(m, "skipper").status).toBe("integrated");
    expect(m.queue.test_findings.map((f) => [f.kind, f.items, f.files])).toEqual([
      ["fewer_tests", ["skipper"], ["test/b.test.js"]],
      ["more_skipped", ["skipper"], ["test/b.test.js"]],
    ]);
    expect(m.queue.batches.at(-1)?.tests).toEqual({ tests: 4, failed: 0, skipped: 1 });
    expect(m.verdict?.findings.filter((f) => f.rule === "tests_weakened").length).toBe(3);
  });
});
