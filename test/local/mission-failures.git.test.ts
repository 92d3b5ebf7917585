/**
 * Local missions where agents misbehave (issue 4 "Tests"): a crash retried to success, an agent
 * writing outside its paths, and a dependency that fails for good. Each failure is reported with
 * its reason, nothing of a failed attempt reaches the queue, and the other items still land.
 */
import { readFile, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { attemptDir, gitCommonDir } from "../../src/engine/records.ts";
import { missionResult } from "../../src/report/index.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import type { Git } from "../../src/git/run-git.ts";
import { itemOf, queueCommits, queueFiles, runMission } from "./local-fixture.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

async function repo(): Promise<TestRepo> {
  const r = await createTestRepo({ "README.md": "# app\n" });
  repos.push(r);
  return r;
}

/** A mission of one item whose checkpoint's ref update fails `times` times (naruto's own step, not the agent). */
async function missionWithFailingCheckpoint(r: TestRepo, times: number) {
  let left = times;
  const git: Git = async (call) => {
    if (left > 0 && call.args.includes("update-ref") && call.args.some((a) => a.startsWith("naruto: checkpoint"))) {
      left--;
      throw new Error("No space left on device (a test)");
    }
    return r.git(call);
  };
  return runMission(r, [{ id: "a" }], { maxAttempts: 1 }, { git });
}

describe("local missions with failing agents", () => {
  it("keeps an attempt's work when naruto's own step fails after the agent ran, and says where", async () => {
    const r = await repo();
    const m = await missionWithFailingCheckpoint(r, 1);
    const reason = itemOf(m, "a").reason ?? "";
    expect(reason).toContain("No space left on device (a test)");
    expect(reason).toContain(`its partial work is kept at refs/naruto/attempts/${m.id}/a/1`);
    expect(await r.run("show", `refs/naruto/attempts/${m.id}/a/1:src/a/a.txt`)).not.toBe("");
  });

  it("leaves the work directory where the reason says when even keeping its work fails", async () => {
    const r = await repo();
    const m = await missionWithFailingCheckpoint(r, Infinity);
    const reason = itemOf(m, "a").reason ?? "";
    const left = /its work directory is left at (\S+) /.exec(reason)?.[1];
    expect(left, reason).toBeDefined();
    expect(await readFile(`${left}/src/a/a.txt`, "utf8")).not.toBe("");
    await rm(dirname(left ?? "/nonexistent"), { recursive: true, force: true });
  });

  it("retries a crashing agent and integrates its second attempt, telling it why the first failed", async () => {
    const r = await repo();
    const m = await runMission(r, [{ id: "flaky", agent: "flaky" }, { id: "steady" }], { maxAttempts: 2 });

    expect(m.status).toBe("done");
    expect(m.verdict?.verdict).toBe("approve");
    const flaky = itemOf(m, "flaky");
    expect(flaky.status).toBe("integrated");
    expect(flaky.attempts.map((a) => a.status)).toEqual(["failed", "integrated"]);
    expect(flaky.attempts[0]?.reason).toContain("exited with code 1");

    // Only the successful attempt is on the queue.
    const commits = await queueCommits(r, m);
    expect(commits.filter((c) => c.item === "flaky").map((c) => c.attempt)).toEqual([2]);
    expect((await queueFiles(r, m))["src/flaky/flaky.txt"]).toBe("edited by flaky (attempt 2)\n");

    const prompt = await readFile(`${attemptDir(await gitCommonDir(r.git, r.dir), m.id, "flaky", 2)}/prompt.md`, "utf8");
    expect(prompt).toContain("## The previous attempt failed");
    expect(prompt).toContain("exited with code 1");
    expect(missionResult(m).items.find((i) => i.id === "flaky")).toMatchObject({ status: "integrated", attempts: 2, reason: null });
  });

  it("fails an agent that writes outside its paths, keeps all of it off the queue, and names the paths", async () => {
    const r = await repo();
    const m = await runMission(r, [{ id: "rogue", agent: "out-of-scope" }, { id: "good" }], { maxAttempts: 1 });

    const rogue = itemOf(m, "rogue");
    expect(rogue.status).toBe("out_of_scope");
    expect(rogue.reason).toContain("outside-rogue.txt");
    expect(itemOf(m, "good").status).toBe("integrated");

    const files = await queueFiles(r, m);
    expect(Object.keys(files).sort()).toEqual(["README.md", "src/good/good.txt"]);
    expect((await queueCommits(r, m)).map((c) => c.item)).toEqual(["good"]);

    expect(m.verdict?.verdict).not.toBe("approve");
    const result = missionResult(m);
    expect(result.items.find((i) => i.id === "rogue")).toMatchObject({ status: "out_of_scope", commit: null, changed: [] });
    expect(result.items.find((i) => i.id === "rogue")?.reason).toContain("outside-rogue.txt");
  });

  it("refuses a change to a protected path even from an item that may write the whole repository", async () => {
    const r = await repo();
    const m = await runMission(r, [{ id: "sneaky", writes: ["."], edits: { "notes.txt": "fine\n", ".github/workflows/ci.yml": "on: push\n" } }], {
      maxAttempts: 1,
    });
    const sneaky = itemOf(m, "sneaky");
    expect(sneaky.status).toBe("out_of_scope");
    expect(sneaky.reason).toContain(".github/workflows/ci.yml");
    expect(await queueCommits(r, m)).toEqual([]);
    expect(m.verdict?.verdict).not.toBe("approve");
  });

  it("fails an item whose own verify command fails, and integrates one whose verify passes", async () => {
    const r = await repo();
    const m = await runMission(
      r,
      [
        { id: "checked", verify: "test -e src/checked/checked.txt" },
        { id: "broken", verify: "echo 'no tests pass' >&2; exit 4" },
      ],
      { maxAttempts: 1 },
    );
    expect(itemOf(m, "checked").status).toBe("integrated");
    const broken = itemOf(m, "broken");
    expect(broken.status).toBe("failed");
    expect(broken.reason).toContain("the item's verify command failed");
    expect(broken.reason).toContain("no tests pass");
    expect((await queueCommits(r, m)).map((c) => c.item)).toEqual(["checked"]);
  });

  it("fails an agent that changed nothing, but not a read-only item that changed nothing", async () => {
    const r = await repo();
    const m = await runMission(
      r,
      [
        { id: "idle", agent: "noop" },
        { id: "reader", agent: "noop", readonly: true },
      ],
      { maxAttempts: 1 },
    );
    expect(itemOf(m, "idle")).toMatchObject({ status: "failed", reason: expect.stringContaining("no changes") });
    expect(itemOf(m, "reader")).toMatchObject({ status: "integrated", commit: null, changed: [] });
    expect(await queueCommits(r, m)).toEqual([]);
  });

  it("skips the dependents of an item that failed for good, naming it, and does not approve", async () => {
    const r = await repo();
    const m = await runMission(r, [{ id: "base", agent: "crash" }, { id: "child", after: ["base"] }, { id: "grandchild", after: ["child"] }, { id: "other" }], {
      maxAttempts: 2,
    });

    expect(m.status).toBe("done");
    const base = itemOf(m, "base");
    expect(base.status).toBe("failed");
    expect(base.attempts).toHaveLength(2);
    for (const id of ["child", "grandchild"]) {
      const item = itemOf(m, id);
      expect(item.status).toBe("skipped");
      expect(item.reason).toContain('dependency "base" failed');
      expect(item.attempts).toEqual([]);
    }
    expect(itemOf(m, "other").status).toBe("integrated");
    expect((await queueCommits(r, m)).map((c) => c.item)).toEqual(["other"]);

    expect(m.verdict?.verdict).not.toBe("approve");
    expect(m.verdict?.findings.some((f) => f.message.includes('"base"') && f.severity === "error")).toBe(true);
    const reasons = Object.fromEntries(missionResult(m).items.map((i) => [i.id, i.reason]));
    expect(reasons["grandchild"]).toContain('"base"');
    expect(reasons["base"]).toContain("exited with code 3");
  });

  it("lands both items of a conflict the plan serializes, the second on top of the first", async () => {
    const r = await repo();
    const m = await runMission(r, [
      { id: "first", writes: ["src/shared/"], edits: { "src/shared/one.txt": "one\n" } },
      { id: "second", writes: ["src/shared/two.txt"], edits: { "src/shared/two.txt": "two\n" } },
    ]);

    expect(itemOf(m, "second").added_after).toEqual(["first"]);
    expect(m.verdict?.verdict).toBe("approve");
    const commits = await queueCommits(r, m);
    expect(commits.map((c) => c.item)).toEqual(["first", "second"]);
    // The second started from the queue head holding the first.
    expect(itemOf(m, "second").attempts[0]?.base).toBe(commits[0]?.commit);
    const files = await queueFiles(r, m);
    expect(files["src/shared/one.txt"]).toBe("one\n");
    expect(files["src/shared/two.txt"]).toBe("two\n");
  });
});
