/**
 * What a killed run leaves in its work directories (src/local/leftover-work.ts), on a real
 * repository: unfinished work is kept under refs/naruto/attempts/, a directory with nothing new
 * keeps nothing, a record that names another folder is not followed, and every work directory of
 * the mission is removed.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MAX_FILE_SIZE } from "../../src/gate/index.ts";
import { keepLeftoverWork } from "../../src/local/leftover-work.ts";
import { createWorkDir, type WorkDir } from "../../src/sandbox/work-dir.ts";
import { missionWorkFolder, workRepo } from "../../src/sandbox/work-root.ts";
import { at, item, missionAfter, planned, requested } from "../support/mission-builders.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";

const repos: TestRepo[] = [];
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
  await Promise.all(roots.splice(0).map((r) => rm(r, { recursive: true, force: true })));
});

describe("keepLeftoverWork", () => {
  it("keeps what each unfinished attempt's work directory holds, follows no forged record, and removes them all", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    const workRoot = await mkdtemp(join(tmpdir(), "naruto-work-"));
    roots.push(workRoot);
    const head = await repo.run("rev-parse", "HEAD");
    const started = (id: string) => ({ type: "attempt_started" as const, at: at(2), item: id, attempt: 1, base: head, runner: "pid 1" });
    // d was started too, but its run was killed before the start (and its base) was stored.
    const mission = missionAfter([requested(), planned([item("a"), item("b"), item("c"), item("d")]), started("a"), started("b"), started("c")]);
    expect(mission.items[3]?.attempts[0]).toMatchObject({ status: "dispatched", base: null });
    await repo.run("update-ref", `refs/heads/${mission.queue.branch}`, head);
    const info = await workRepo(repo.git, repo.dir);
    const folder = missionWorkFolder(workRoot, info, mission.id);
    const dirs: Record<string, WorkDir> = {};
    // Side by side: nothing of the repository is locked to make them.
    await Promise.all(
      ["a", "b", "c", "d"].map(async (id) => {
        dirs[id] = await createWorkDir({
          git: repo.git,
          repo: info,
          folder,
          label: `${id}.1`,
          commit: head,
          record: { mission: mission.id, purpose: id, attempt: 1 },
        });
      }),
    );
    // a: half-done work, tracked and untracked; b: nothing new; c: its record forged to name d's folder; d: work of its own.
    await mkdir(join(dirs.a!.path, "src/a"), { recursive: true });
    await writeFile(join(dirs.a!.path, "src/a/half.txt"), "half\n");
    await writeFile(join(dirs.a!.path, "README.md"), "# app, edited\n");
    await writeFile(join(dirs.c!.path, "c.txt"), "c\n");
    await writeFile(
      join(dirs.c!.private, "work-dir.json"),
      JSON.stringify({ schema: "naruto.work-dir/v1", mission: mission.id, purpose: "c", attempt: 1, dir: dirs.d }),
    );
    await mkdir(join(dirs.d!.path, "src/d"), { recursive: true });
    await writeFile(join(dirs.d!.path, "src/d/d.txt"), "d\n");
    // What naruto never stores is named in the kept commit, not dropped unsaid.
    await promisify(execFile)("mkfifo", [join(dirs.d!.path, "src/d/pipe")]);

    const kept = await keepLeftoverWork({
      git: repo.git,
      repoDir: repo.dir,
      mission,
      workRoot,
      now: () => new Date("2026-11-30T00:00:00Z"),
      maxFileSize: DEFAULT_MAX_FILE_SIZE,
    });

    const ref = `refs/naruto/attempts/${mission.id}/a/1`;
    const commit = await repo.run("rev-parse", ref);
    expect([...kept].sort()).toEqual([
      ["a", { kind: "kept", ref, commit, outside: [] }],
      ["d", { kind: "kept", ref: `refs/naruto/attempts/${mission.id}/d/1`, commit: expect.stringMatching(/^[0-9a-f]{40}$/), outside: [] }],
    ]);
    expect(await repo.run("rev-parse", `refs/naruto/attempts/${mission.id}/d/1^`)).toBe(head);
    expect(await repo.run("show", `refs/naruto/attempts/${mission.id}/d/1:src/d/d.txt`)).toBe("d");
    expect(await repo.run("log", "-1", "--format=%b", `refs/naruto/attempts/${mission.id}/d/1`)).toContain(
      "Left out, as naruto never stores them: src/d/pipe (special_file).",
    );
    expect(await repo.run("rev-parse", `${ref}^`)).toBe(head);
    expect((await repo.run("diff", "--name-only", head, ref)).split("\n")).toEqual(["README.md", "src/a/half.txt"]);
    expect(await repo.run("log", "-1", "--format=%an <%ae>%n%s", ref)).toBe(
      "naruto <naruto@users.noreply.github.com>\nnaruto: unfinished work of a, attempt 1",
    );
    expect(await repo.run("for-each-ref", "--format=%(refname)", `refs/naruto/attempts/${mission.id}/c/`)).toBe("");
    // Every work directory is gone, the mission's folder too; the repository has no work tree of naruto's.
    expect(await readdir(join(workRoot, info.key))).toEqual([]);
    expect((await repo.run("worktree", "list", "--porcelain")).split("\n").filter((l) => l.startsWith("worktree "))).toHaveLength(1);
  });
});
