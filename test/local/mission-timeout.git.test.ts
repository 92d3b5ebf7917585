/**
 * A local mission with a hanging agent (issue 4 "Tests"): the item times out, its whole process
 * tree is gone afterwards (a grandchild that ignores SIGTERM included), its dependents are
 * skipped, and the rest of the mission goes on.
 */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { processesWithEnv } from "../../src/sandbox/leftovers.ts";
import { fakeAgentCommand } from "../support/agents/index.ts";
import { createTestRepo } from "../support/git-repo.ts";
import { itemOf, missionProcesses, queueCommits, runMission } from "./local-fixture.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe("a hanging agent in a local mission", () => {
  it("times the item out, stops its process tree, and skips its dependents", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    cleanups.push(() => repo.remove());
    // Its processes carry a mark of this test's, found on the host's process table (a pid written
    // inside the sandbox's PID namespace would mean nothing here).
    const mark = `TEST_MARK=${randomBytes(6).toString("hex")}`;

    // Writes a file, then hangs: what it did before it hung is kept, not thrown away.
    const halfDone = `mkdir -p src/stuck && echo partial > src/stuck/partial.txt && ${mark} ${fakeAgentCommand("hang")}`;
    const run = runMission(repo, [{ id: "stuck", agent: "half-done" }, { id: "needs-stuck", after: ["stuck"] }, { id: "free" }], {
      itemTimeout: "3s",
      maxAttempts: 1,
      agents: { "half-done": halfDone },
    });
    let hanging: number[] = [];
    for (let waited = 0; waited < 20_000 && hanging.length < 2; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
      hanging = await processesWithEnv(mark);
    }
    expect(hanging.length).toBeGreaterThanOrEqual(2);
    const m = await run;

    const stuck = itemOf(m, "stuck");
    expect(stuck.status).toBe("timed_out");
    expect(stuck.reason).toMatch(/timed out.* 3 ?s/);
    expect(stuck.reason).toContain(`refs/naruto/attempts/${m.id}/stuck/1`);
    const { stdout } = await repo.git({ args: ["cat-file", "blob", `refs/naruto/attempts/${m.id}/stuck/1:src/stuck/partial.txt`], cwd: repo.dir });
    expect(stdout.toString()).toBe("partial\n");
    expect(itemOf(m, "needs-stuck")).toMatchObject({ status: "skipped", attempts: [] });
    expect(itemOf(m, "needs-stuck").reason).toContain('dependency "stuck"');
    expect(itemOf(m, "free").status).toBe("integrated");
    expect((await queueCommits(repo, m)).map((c) => c.item)).toEqual(["free"]);
    expect(m.verdict?.verdict).not.toBe("approve");

    // When the mission returns, nothing of the attempt runs any more.
    expect(await processesWithEnv(mark)).toEqual([]);
    expect(await missionProcesses(m.id)).toEqual([]);
  });
});
