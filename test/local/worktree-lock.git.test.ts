/**
 * Two processes adding and removing work trees in one repository at the same time (two local
 * runs side by side) all succeed: the lock file serializes git's work-tree bookkeeping across
 * processes, not only within one (src/local/serial-worktrees.ts).
 */
import { spawn } from "node:child_process";
import { access } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";

const CHILD = fileURLToPath(new URL("./worktree-lock-child.ts", import.meta.url));
let repo: TestRepo;
beforeAll(async () => {
  repo = await createTestRepo({ "README.md": "# lock\n" });
});
afterAll(async () => repo.remove());

function child(lockFile: string, prefix: string, count: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ["--import", "tsx", CHILD, repo.dir, lockFile, prefix, String(count)], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    p.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("the work-tree lock across processes", () => {
  it("lets two processes add and remove 8 work trees each in one repository without a failure", async () => {
    const lockFile = join(repo.dir, ".git", "naruto", "worktree.lock");
    const results = await Promise.all([child(lockFile, "a", 8), child(lockFile, "b", 8)]);
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(await repo.run("worktree", "list", "--porcelain")).not.toContain("lock-test");
    await expect(access(lockFile)).rejects.toThrow();
  });
});
