import { existsSync } from "node:fs";
import { readdir, readFile, realpath, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { agentHands } from "../../test/support/worker-fixture.ts";
import { createWorktree, recreateWorktree, removeWorktree, workerBranch, WorktreeError } from "./worktree.ts";

let repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.map((r) => r.remove()));
  repos = [];
});
async function repo(files?: Record<string, string>): Promise<TestRepo> {
  const r = await createTestRepo(files);
  repos.push(r);
  return r;
}

describe("workerBranch", () => {
  it("names the branch naruto/<mission>--<item>", () => {
    expect(workerBranch("m-1a2b", "users-api")).toBe("naruto/m-1a2b--users-api");
  });

  it.each(["", "Upper", "a..b", "x.lock", "ends.", "-dash", "sp ace", "a/b", "ä"])("rejects the id %j", (id) => {
    expect(() => workerBranch("m-1", id)).toThrow(WorktreeError);
    expect(() => workerBranch(id, "item")).toThrow(WorktreeError);
  });
});

describe("createWorktree", () => {
  it("creates the worker branch at the given commit and a work tree inside git's directory", async () => {
    const r = await repo({ "a.txt": "one\n" });
    const first = await r.run("rev-parse", "HEAD");
    await r.commit("second", { "a.txt": "two\n" });
    const wt = await createWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", at: first });

    expect(wt.start).toBe(first);
    expect(wt.branch).toBe("refs/heads/naruto/m-1--api");
    expect(await r.run("rev-parse", "refs/heads/naruto/m-1--api")).toBe(first);
    expect(wt.path).toBe(join(await realpath(r.dir), ".git", "naruto", "worktrees", "m-1", "api"));
    expect(await readFile(join(wt.path, "a.txt"), "utf8")).toBe("one\n");
    expect(wt.refs["refs/heads/main"]).toBe(await r.run("rev-parse", "main"));
    expect(wt.refs[wt.branch]).toBe(first);
    // The user's checkout does not see the work tree as untracked content.
    expect(await r.run("status", "--porcelain")).toBe("");
  });

  it("starts from the commit, not from the user's uncommitted changes", async () => {
    const r = await repo({ "a.txt": "committed\n" });
    await r.write({ "a.txt": "dirty\n", "new.txt": "untracked\n" });
    const wt = await createWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", at: "main" });
    expect(await readFile(join(wt.path, "a.txt"), "utf8")).toBe("committed\n");
    expect(existsSync(join(wt.path, "new.txt"))).toBe(false);
  });

  it("refuses to overwrite an existing worker branch", async () => {
    const r = await repo();
    await createWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", at: "HEAD" });
    const again = createWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", at: "HEAD" });
    await expect(again).rejects.toMatchObject({ name: "WorktreeError", problem: "branch_exists" });
  });

  it("rejects a start that is not a commit", async () => {
    const r = await repo();
    const bad = createWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", at: "no-such-branch" });
    await expect(bad).rejects.toMatchObject({ name: "WorktreeError", problem: "not_a_commit" });
  });
});

describe("recreateWorktree", () => {
  it("removes the old work tree and re-creates the branch at the new commit", async () => {
    const r = await repo({ "a.txt": "one\n" });
    const old = await createWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", at: "HEAD" });
    const agent = agentHands(r, old.path);
    await agent.write({ "a.txt": "agent was here\n", "junk.txt": "left over\n" });
    await agent.git("commit", "-qam", "agent commit");
    const head = await r.commit("queue moved", { "b.txt": "b\n" });

    const wt = await recreateWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", at: head });
    expect(wt.path).toBe(old.path);
    expect(wt.start).toBe(head);
    expect(await r.run("rev-parse", "refs/heads/naruto/m-1--api")).toBe(head);
    expect(await readFile(join(wt.path, "a.txt"), "utf8")).toBe("one\n");
    expect(await readFile(join(wt.path, "b.txt"), "utf8")).toBe("b\n");
    expect(existsSync(join(wt.path, "junk.txt"))).toBe(false);
    expect(await worktreeCount(r)).toBe(2);
  });

  it("works when there was no work tree before", async () => {
    const r = await repo();
    const wt = await recreateWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", at: "HEAD" });
    expect(wt.start).toBe(await r.run("rev-parse", "HEAD"));
  });
});

describe("removeWorktree", () => {
  it("leaves no work tree, admin directory or branch behind when asked", async () => {
    const r = await repo();
    const wt = await createWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", at: "HEAD" });
    await agentHands(r, wt.path).write({ "dirty.txt": "uncommitted\n" });

    await removeWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", deleteBranch: true });
    expect(existsSync(wt.path)).toBe(false);
    expect(existsSync(wt.gitDir)).toBe(false);
    expect(await worktreeCount(r)).toBe(1);
    expect(await r.run("for-each-ref", "refs/heads/naruto/")).toBe("");
    expect(await readdir(join(r.dir, ".git", "naruto", "worktrees"))).toEqual([]);
  });

  it("keeps the branch unless asked, and is safe to call twice", async () => {
    const r = await repo();
    const wt = await createWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", at: "HEAD" });
    await removeWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", deleteBranch: false });
    await removeWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", deleteBranch: false });
    expect(await r.run("rev-parse", "refs/heads/naruto/m-1--api")).toBe(wt.start);
    expect(await worktreeCount(r)).toBe(1);
  });

  it("cleans up after an agent that deleted its own work tree", async () => {
    const r = await repo();
    const wt = await createWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", at: "HEAD" });
    await rm(wt.path, { recursive: true, force: true });
    await removeWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "api", deleteBranch: true });
    expect(existsSync(wt.gitDir)).toBe(false);
    expect(await worktreeCount(r)).toBe(1);
  });

  it("leaves the other items' work trees of the mission alone", async () => {
    const r = await repo();
    await createWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "a", at: "HEAD" });
    const b = await createWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "b", at: "HEAD" });
    await removeWorktree({ git: r.git, repoDir: r.dir, mission: "m-1", item: "a", deleteBranch: true });
    expect(existsSync(join(b.path, "README.md"))).toBe(true);
    expect(await worktreeCount(r)).toBe(2);
  });
});

async function worktreeCount(r: TestRepo): Promise<number> {
  const list = await r.run("worktree", "list", "--porcelain");
  return list.split("\n").filter((l) => l.startsWith("worktree ")).length;
}
