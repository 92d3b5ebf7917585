/**
 * A local mission with a hanging agent (issue 4 "Tests"): the item times out, its whole process
 * tree is gone afterwards (a grandchild that ignores SIGTERM included), its dependents are
 * skipped, and the rest of the mission goes on.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fakeAgentCommand } from "../support/agents/index.ts";
import { isAlive, waitForFile } from "../support/agents/processes.ts";
import { createTestRepo } from "../support/git-repo.ts";
import { itemOf, missionProcesses, queueCommits, runMission } from "./local-fixture.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe("a hanging agent in a local mission", () => {
  it("times the item out, stops its process tree, and skips its dependents", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    const dir = await mkdtemp(join(tmpdir(), "naruto-hang-"));
    cleanups.push(() => repo.remove(), () => rm(dir, { recursive: true, force: true }));
    const pidFile = join(dir, "grandchild.pid");

    // Writes a file, then hangs: what it did before it hung is kept, not thrown away.
    const halfDone = `mkdir -p src/stuck && echo partial > src/stuck/partial.txt && NARUTO_FAKE_PID_FILE=${pidFile} ${fakeAgentCommand("hang")}`;
    const run = runMission(
      repo,
      [{ id: "stuck", agent: "half-done" }, { id: "needs-stuck", after: ["stuck"] }, { id: "free" }],
      { itemTimeout: "3s", maxAttempts: 1, agents: { "half-done": halfDone } },
    );
    const pid = Number(await waitForFile(pidFile));
    expect(pid).toBeGreaterThan(0);
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
    expect(await isAlive(pid)).toBe(false);
    expect(await missionProcesses(m.id)).toEqual([]);
  });
});
