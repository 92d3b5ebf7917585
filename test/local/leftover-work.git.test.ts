/**
 * What a killed run leaves in its work trees (src/local/leftover-work.ts), on a real repository:
 * unfinished work is kept under refs/naruto/attempts/, a work tree with nothing new keeps
 * nothing, one whose `.git` an agent pointed elsewhere is not followed (and says so), and every
 * work tree of the mission is removed with git's record of it.
 */
import { mkdir, readdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createWorktree, WORKTREES_DIR } from "../../src/git/index.ts";
import { keepLeftoverWork } from "../../src/local/leftover-work.ts";
import { at, item, missionAfter, planned, requested } from "../support/mission-builders.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

describe("keepLeftoverWork", () => {
  it("keeps what each unfinished attempt's work tree holds, follows no redirected .git, and removes every work tree", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    const elsewhere = await createTestRepo({ "OTHER.md": "another repository\n" });
    repos.push(repo, elsewhere);
    const head = await repo.run("rev-parse", "HEAD");
    const started = (id: string) => ({ type: "attempt_started" as const, at: at(2), item: id, attempt: 1, base: head, runner: "pid 1" });
    // d was started too, but its run was killed before the start (and its base) was stored.
    const mission = missionAfter([requested(), planned([item("a"), item("b"), item("c"), item("d")]), started("a"), started("b"), started("c")]);
    expect(mission.items[3]?.attempts[0]).toMatchObject({ status: "dispatched", base: null });
    await repo.run("update-ref", `refs/heads/${mission.queue.branch}`, head);
    // One after the other: `git worktree add` is not safe beside another (serial-worktrees.ts).
    const trees: Record<string, Awaited<ReturnType<typeof createWorktree>>> = {};
    for (const id of ["a", "b", "c", "d"]) trees[id] = await createWorktree({ git: repo.git, repoDir: repo.dir, mission: mission.id, item: id, at: head });
    // a: half-done work, tracked and untracked; b: nothing new; c: an agent pointed its .git at another repository.
    await mkdir(join(trees.a!.path, "src/a"), { recursive: true });
    await writeFile(join(trees.a!.path, "src/a/half.txt"), "half\n");
    await writeFile(join(trees.a!.path, "README.md"), "# app, edited\n");
    await writeFile(join(trees.c!.path, "src-c.txt"), "c\n");
    await mkdir(join(trees.d!.path, "src/d"), { recursive: true });
    await writeFile(join(trees.d!.path, "src/d/d.txt"), "d\n");
    await writeFile(join(trees.c!.path, ".git"), `gitdir: ${join(elsewhere.dir, ".git")}\n`);

    const kept = await keepLeftoverWork({ git: repo.git, repoDir: repo.dir, commonDir: join(repo.dir, ".git"), mission, now: () => new Date("2026-11-30T00:00:00Z") });

    const ref = `refs/naruto/attempts/${mission.id}/a/1`;
    const commit = await repo.run("rev-parse", ref);
    expect([...kept]).toEqual([
      ["a", `its unfinished work is kept at ${ref} (${commit.slice(0, 12)})`],
      ["c", "its unfinished work could not be kept: its work tree's .git no longer points into this repository"],
      ["d", expect.stringMatching(new RegExp(`^its unfinished work is kept at refs/naruto/attempts/${mission.id}/d/1 \\([0-9a-f]{12}\\)$`))],
    ]);
    expect(await repo.run("rev-parse", `refs/naruto/attempts/${mission.id}/d/1^`)).toBe(head);
    expect(await repo.run("show", `refs/naruto/attempts/${mission.id}/d/1:src/d/d.txt`)).toBe("d");
    expect(await repo.run("rev-parse", `${ref}^`)).toBe(head);
    expect((await repo.run("diff", "--name-only", head, ref)).split("\n")).toEqual(["README.md", "src/a/half.txt"]);
    expect(await repo.run("log", "-1", "--format=%an <%ae>%n%s", ref)).toBe("naruto <naruto@users.noreply.github.com>\nnaruto: unfinished work of a, attempt 1");
    // Nothing of the other repository was read or written.
    expect(await elsewhere.run("for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
    expect(await elsewhere.run("status", "--porcelain")).toBe("");
    // Every work tree is gone, and git no longer lists them.
    expect(await readdir(join(repo.dir, ".git", WORKTREES_DIR, mission.id)).catch(() => [])).toEqual([]);
    const listed = (await repo.run("worktree", "list", "--porcelain")).split("\n").filter((l) => l.startsWith("worktree "));
    expect(listed).toEqual([`worktree ${await realpath(repo.dir)}`]);
  });
});
