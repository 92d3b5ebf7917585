/**
 * Standalone work directories (work-dir.ts) on a real repository: where they are, what they
 * hold, that many are made at once, and that they go whatever an agent did to them.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { createWorkDir, defaultWorkRoot, listMissionWorkDirs, missionWorkFolder, removeEmptyMissionFolder, removeWorkDir, retireWorkDir, workRepo, WorkRootError } from "./work-dir.ts";

let repo: TestRepo;
let root: string;
afterEach(async () => {
  await repo?.remove();
  if (root) {
    await chmod(root, 0o700).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  }
});

async function setup() {
  repo = await createTestRepo({ "README.md": "# app\n", "src/a.ts": "a\n", ".gitignore": "*.log\n" });
  await repo.write({ ".env": "GITHUB_TOKEN=ghp_secret\n", "scratch.log": "untracked\n" });
  root = await mkdtemp(join(tmpdir(), "naruto-work-"));
  const info = await workRepo(repo.git, repo.dir);
  return { info, folder: missionWorkFolder(root, info, "m-test"), head: await repo.run("rev-parse", "HEAD") };
}

describe("a work directory", () => {
  it("holds the commit's files and a throwaway repository of that one commit, outside the repository", async () => {
    const { info, folder, head } = await setup();
    const dir = await createWorkDir({ git: repo.git, repo: info, folder, label: "a.1", commit: head, record: { mission: "m-test", purpose: "a", attempt: 1 } });
    expect(await readFile(join(dir.path, "src/a.ts"), "utf8")).toBe("a\n");
    // Not the user's uncommitted files, and no `.git/` on its path (Claude Code edits nothing under one).
    await expect(readFile(join(dir.path, ".env"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(readFile(join(dir.path, "scratch.log"))).rejects.toMatchObject({ code: "ENOENT" });
    expect(dir.path.split("/")).not.toContain(".git");
    // Walking up from it never reaches the repository (agents look for .env, CLAUDE.md, .claude/ there).
    for (let d = dir.path; d !== "/"; d = dirname(d)) expect(relative(repo.dir, d).startsWith("..")).toBe(true);
    // Its own git: the one commit, shallow, on a detached HEAD, no refs, nothing of the user's config.
    const agentGit = (...args: string[]) => repo.git({ args, cwd: dir.path }).then((r) => r.stdout.toString().trim());
    expect(await agentGit("rev-parse", "HEAD")).toBe(head);
    expect(await agentGit("log", "--format=%H")).toBe(head);
    expect(await agentGit("for-each-ref")).toBe("");
    expect(await agentGit("status", "--porcelain")).toBe("");
    expect(await repo.run("worktree", "list", "--porcelain")).not.toContain(dir.path);
    await removeWorkDir(dir);
    await expect(stat(dir.root)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("is made side by side with others, none locking the repository, and listed from its record", async () => {
    const { info, folder, head } = await setup();
    const dirs = await Promise.all(Array.from({ length: 8 }, (_, i) => createWorkDir({ git: repo.git, repo: info, folder, label: `i${i}.1`, commit: head, record: { mission: "m-test", purpose: `i${i}`, attempt: 1 } })));
    expect(new Set(dirs.map((d) => d.root)).size).toBe(8);
    // The mission's folder can be crossed, not listed (as long as one is not root).
    expect((await stat(folder)).mode & 0o777).toBe(0o300);
    const listed = await listMissionWorkDirs(folder);
    expect(listed.map((l) => l.record?.purpose).sort()).toEqual(dirs.map((d) => d.label.split(".")[0]).sort());
    await Promise.all(dirs.map((d) => removeWorkDir(d)));
    await removeEmptyMissionFolder(folder);
    await expect(stat(folder)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("goes, whatever the agent did to its folders", async () => {
    const { info, folder, head } = await setup();
    const dir = await createWorkDir({ git: repo.git, repo: info, folder, label: "a.1", commit: head, record: { mission: "m-test", purpose: "a", attempt: 1 } });
    await mkdir(join(dir.path, "locked/deep"), { recursive: true });
    await writeFile(join(dir.path, "locked/deep/f"), "x");
    await chmod(join(dir.path, "locked/deep"), 0o000);
    await chmod(join(dir.path, "locked"), 0o000);
    await removeWorkDir(dir);
    await expect(stat(dir.root)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("leaves its name at once when retired, is never taken for unfinished work meanwhile, and goes", async () => {
    const { info, folder, head } = await setup();
    const dir = await createWorkDir({ git: repo.git, repo: info, folder, label: "a.1", commit: head, record: { mission: "m-test", purpose: "a", attempt: 1 } });
    await writeFile(join(dir.path, "src/a.ts"), "unfinished\n");
    const { removed } = await retireWorkDir(dir);
    await expect(stat(dir.root)).rejects.toMatchObject({ code: "ENOENT" });
    // A run killed before the deletion ends finds a folder whose record is not its own: no work to keep.
    expect((await listMissionWorkDirs(folder)).every((l) => l.record === null)).toBe(true);
    await removed;
    expect(await listMissionWorkDirs(folder)).toEqual([]);
  });

  it("is never made inside the repository", async () => {
    const { info } = await setup();
    expect(() => missionWorkFolder(join(repo.dir, "tmp"), info, "m-test")).toThrow(WorkRootError);
    expect(() => missionWorkFolder(join(repo.dir, ".git", "naruto"), info, "m-test")).toThrow(WorkRootError);
  });
});

describe("defaultWorkRoot", () => {
  it.each([
    [{ HOME: "/home/u" }, null, "/home/u/.cache/naruto"],
    [{ HOME: "/home/u", XDG_CACHE_HOME: "/var/cache/u" }, null, "/var/cache/u/naruto"],
    [{ HOME: "/home/u", XDG_CACHE_HOME: "relative" }, null, "/home/u/.cache/naruto"],
    [{ HOME: "/home/u" }, "~/work", "/home/u/work"],
    [{ HOME: "/home/u" }, "elsewhere", "/cwd/elsewhere"],
  ])("%j with %j → %s", (env, override, expected) => {
    expect(defaultWorkRoot(env, { override, cwd: "/cwd" })).toBe(expected);
  });
});
