/**
 * What a local drive waits for: its end comes as soon as its last task has (the report written,
 * the last work directory deleted), not at the clock's next tick; an integration does not read
 * the tamper record again after the attempts' own checks.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo } from "../support/git-repo.ts";
import { runMission } from "./local-fixture.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe("a local drive", () => {
  // The clock ticks once an hour: a drive that waited for a tick would never end within the test.
  it("ends with its last task, without waiting for the clock", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    cleanups.push(() => repo.remove());
    const m = await runMission(repo, [{ id: "a" }, { id: "b" }, { id: "c", after: ["a"] }], { maxParallel: 2 }, { tickMs: 3_600_000 });
    expect(m.status).toBe("done");
    expect(m.items.map((i) => i.status)).toEqual(["integrated", "integrated", "integrated"]);
  }, 60_000);

  it("reads the tamper record once per attempt, and not again before integrating what it checked", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    cleanups.push(() => repo.remove());
    let reads = 0;
    const git: typeof repo.git = (call) => {
      if (call.args.includes("for-each-ref")) reads++;
      return repo.git(call);
    };
    const m = await runMission(repo, [{ id: "a" }, { id: "b" }, { id: "c" }], { maxParallel: 1 }, { git });
    expect(m.items.map((i) => i.status)).toEqual(["integrated", "integrated", "integrated"]);
    // The record before the mission, one after each attempt, one before the review.
    expect(reads).toBe(1 + 3 + 1);
  }, 60_000);
});
