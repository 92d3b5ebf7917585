/**
 * `naruto refresh` after the base moved (issue 37): the queue's checkpoints are replayed item by
 * item onto the new base and verified; an item that now conflicts is named, retried from the new
 * head, and the arbiter reviews the refreshed queue. A refresh that changes nothing says so.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { shellQuote } from "../../src/agent/shell-quote.ts";
import { main } from "../../src/cli/main.ts";
import type { Mission } from "../../src/mission/index.ts";
import { refreshLocalMission } from "../../src/local/index.ts";
import { queueCheckLines } from "../../src/report/index.ts";
import { execFileSync } from "node:child_process";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { fakeCli } from "./cli-io.ts";
import { fakeConfig, itemOf, localDeps, queueCommits, queueFiles, runMission, type FakeConfigOptions } from "./local-fixture.ts";

const VERIFY = fileURLToPath(new URL("./verify-tests.mjs", import.meta.url));

/** As root (CI), agents without a sandbox ran as root: that finding caps the verdict, and is the only error. */
function expectApproved(m: Mission): void {
  expect(m.verdict?.findings.filter((f) => f.severity === "error" && f.rule !== "agents_as_root")).toEqual([]);
  if (process.getuid?.() !== 0) expect(m.verdict?.verdict).toBe("approve");
}

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

describe("naruto refresh", () => {
  it("replays the queue onto the moved base, verified; a conflicted item is named and retried from the new head", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n", "test/a.test.js": "it('adds', () => {});\n" });
    repos.push(repo);
    const options: FakeConfigOptions = {
      verify: [process.execPath, VERIFY, "--red-if-exists", "BROKEN"].map(shellQuote).join(" "),
      maxAttempts: 2,
      sandbox: "none",
    };
    const m = await runMission(repo, [{ id: "a" }, { id: "b" }, { id: "c" }], options);
    expectApproved(m);
    const oldHead = m.queue.head;
    const oldOrder = (await queueCommits(repo, m)).map((c) => c.item).filter((i) => i !== "c");

    // The base branch moves: one commit nobody conflicts with, one that writes c's file.
    await repo.write({ "docs/new.md": "# new\n" });
    await repo.run("add", "-A");
    await repo.run("commit", "-qm", "docs");
    await repo.write({ "src/c/c.txt": "written on main meanwhile\n" });
    await repo.run("add", "-A");
    await repo.run("commit", "-qm", "c moved on main");
    const newBase = await repo.run("rev-parse", "HEAD");

    const refreshed = await refreshLocalMission(localDeps(repo), { repoDir: repo.dir, id: m.id, onto: null, config: fakeConfig(options) });
    expect(refreshed.kind).toBe("refreshed");
    expect(refreshed.message).toContain(`onto main (${newBase.slice(0, 12)}): 2 item(s) replayed`);
    expect(refreshed.message).toMatch(/c: conflicts with the new base .* on src\/c\/c\.txt/);
    const after = refreshed.mission;

    expect(after.base).toEqual({ ref: "main", commit: newBase });
    expect(after.queue.head).not.toBe(oldHead);
    // Every item on the new base: a and b replayed, c retried from the new head.
    await repo.run("merge-base", "--is-ancestor", newBase, after.queue.head);
    expect(after.items.map((i) => [i.id, i.status])).toEqual([
      ["a", "integrated"],
      ["b", "integrated"],
      ["c", "integrated"],
    ]);
    expect(itemOf(after, "c").attempts.map((a) => a.status)).toEqual(["conflicted", "integrated"]);
    expect(itemOf(after, "c").attempts[0]?.reason).toContain("conflicts with the new base");
    const commits = await queueCommits(repo, after);
    // The replayed ones in their old order, then c's retry.
    expect(commits.map((c) => c.item)).toEqual([...oldOrder, "c"]);
    for (const c of commits) expect(itemOf(after, c.item).commit).toBe(c.commit);
    expect((await queueFiles(repo, after))["docs/new.md"]).toBe("# new\n");
    // Verified: the new base first, then the replayed batch, then c's retry.
    expect(after.queue.base_check).toMatchObject({ commit: newBase, green: true });
    expect(after.queue.verify_runs).toBeGreaterThan(m.queue.verify_runs + 2);
    expect(after.queue.refreshes).toMatchObject([{ from: m.base.commit, to: newBase, replayed: 2, dropped: [{ item: "c" }] }]);
    expect(after.status).toBe("done");
    expectApproved(after);

    // Again, with nothing moved: it says so and changes nothing.
    const cli = fakeCli(repo.dir);
    const code = await main(["refresh", m.id], cli.io);
    expect(cli.stderr()).toContain(`nothing to refresh: main is still at ${newBase.slice(0, 12)}`);
    // The exit code is the verdict's (as root without a sandbox it is capped: exit 1).
    expect(code).toBe(after.verdict?.verdict === "approve" ? 0 : 1);
  });

  it("does not touch the queue when the new base is red, and says so", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    const options: FakeConfigOptions = { verify: [process.execPath, VERIFY, "--red-if-exists", "BROKEN"].map(shellQuote).join(" "), sandbox: "none" };
    const m = await runMission(repo, [{ id: "a" }], options);
    await repo.write({ BROKEN: "main broke\n" });
    await repo.run("add", "-A");
    await repo.run("commit", "-qm", "break main");
    const refreshed = await refreshLocalMission(localDeps(repo), { repoDir: repo.dir, id: m.id, onto: null, config: fakeConfig(options) });
    expect(refreshed.kind).toBe("halted");
    expect(refreshed.message).toContain("the queue was not refreshed: the base is red");
    expect(await repo.run("rev-parse", `refs/heads/${m.queue.branch}`)).toBe(m.queue.head);
  });

  it("says so when the base branch moved while the mission ran, names `naruto refresh`, and the refresh clears it", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    const options: FakeConfigOptions = { verify: [process.execPath, VERIFY, "--red-if-exists", "BROKEN"].map(shellQuote).join(" "), sandbox: "none" };
    let moved = "";
    // The user commits on main while the mission's item is being integrated.
    const progress = {
      event(e: { type: string }) {
        if (e.type !== "integrated" || moved !== "") return;
        execFileSync("git", ["-C", repo.dir, "commit", "-q", "--allow-empty", "-m", "meanwhile on main"]);
        moved = execFileSync("git", ["-C", repo.dir, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
      },
      output() {},
      error() {},
      close() {},
    };
    const m = await runMission(repo, [{ id: "a" }], options, { progress });
    expect(moved).not.toBe("");
    expect(m.status).toBe("done");
    expect(m.base.ref).toBe("main");
    expect(m.base.commit).not.toBe(moved);
    expect(m.queue.base_moved).toMatchObject({ commit: moved });
    const line = queueCheckLines(m).find((l) => l.startsWith("**Base moved:**")) ?? "";
    expect(line).toContain(`\`naruto refresh ${m.id}\``);

    const cli = fakeCli(repo.dir);
    await main(["status", m.id], cli.io);
    expect(cli.stdout()).toContain(
      `base moved: main is at ${moved.slice(0, 12)}, past the queue's base ${m.base.commit.slice(0, 12)}: naruto refresh ${m.id} replays it`,
    );

    const refreshed = await refreshLocalMission(localDeps(repo), { repoDir: repo.dir, id: m.id, onto: null, config: fakeConfig(options) });
    expect(refreshed.kind).toBe("refreshed");
    expect(refreshed.mission.base.commit).toBe(moved);
    expect(refreshed.mission.queue.base_moved).toBeNull();
    expect(queueCheckLines(refreshed.mission).some((l) => l.startsWith("**Base moved:**"))).toBe(false);
  });
});
