/**
 * While a run drives a mission, its work-tree folder stays (src/local/worktree-folder.ts):
 * removing one attempt's work tree must not delete the folder under another being made there.
 */
import { existsSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createWorktree, removeWorktree, WORKTREES_DIR } from "../../src/git/index.ts";
import { pinWorktreeFolder } from "../../src/local/worktree-folder.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

describe("pinWorktreeFolder", () => {
  it("keeps the mission's folder through work-tree removals, and removes it when unpinned", async () => {
    const repo = await createTestRepo();
    repos.push(repo);
    const folder = join(await realpath(join(repo.dir, ".git")), WORKTREES_DIR, "m-pin1");
    const target = { git: repo.git, repoDir: repo.dir, mission: "m-pin1", item: "a" };

    const unpin = await pinWorktreeFolder(repo.git, repo.dir, "m-pin1");
    await createWorktree({ ...target, at: "HEAD" });
    await removeWorktree({ ...target, deleteBranch: true });
    expect(existsSync(folder)).toBe(true);
    expect(existsSync(join(folder, "a"))).toBe(false);

    await unpin();
    expect(existsSync(folder)).toBe(false);
  });

  it("leaves the folder to work trees still in it when unpinned", async () => {
    const repo = await createTestRepo();
    repos.push(repo);
    const unpin = await pinWorktreeFolder(repo.git, repo.dir, "m-pin2");
    const wt = await createWorktree({ git: repo.git, repoDir: repo.dir, mission: "m-pin2", item: "b", at: "HEAD" });
    await unpin();
    expect(existsSync(wt.path)).toBe(true);
  });
});
