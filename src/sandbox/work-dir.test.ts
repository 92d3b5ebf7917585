/**
 * Standalone work directories (work-dir.ts) on a real repository: where they are, what they
 * hold, that many are made at once, and that they go whatever an agent did to them.
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, testGit, type TestRepo } from "../../test/support/git-repo.ts";
import { createWorkDir } from "./work-dir.ts";
import { defaultWorkRoot, missionWorkFolder, workRepo, WorkRootError } from "./work-root.ts";
import { listMissionWorkDirs, removeEmptyMissionFolder, removeWorkDir, retireWorkDir } from "./remove-work-dir.ts";

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
    const dirs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        createWorkDir({ git: repo.git, repo: info, folder, label: `i${i}.1`, commit: head, record: { mission: "m-test", purpose: `i${i}`, attempt: 1 } }),
      ),
    );
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

/**
 * Issue 31, part 8: a work directory's repository reads its start commit's objects, not the
 * user's whole store. Before, it borrowed the store through its alternates, and a secret of a
 * commit the user had reset away could be read back by its id (or by listing the store).
 */
describe("a work directory's objects", () => {
  /** Every object the agent's repository can read, as `<id> <type>`. */
  async function readable(dir: { path: string }): Promise<string[]> {
    const out = await repo.git({ args: ["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"], cwd: dir.path });
    return out.stdout.toString().trim().split("\n").sort();
  }
  /** The packs a work directory's objects hold, by inode (a link to one pack is that pack). */
  async function packFiles(dir: { startObjects: readonly string[] }): Promise<string> {
    const found: string[] = [];
    for (const folder of dir.startObjects) {
      for (const name of (await readdir(join(folder, "pack"))).filter((n) => n.endsWith(".pack")))
        found.push(String((await stat(join(folder, "pack", name))).ino));
    }
    return found.sort().join(",");
  }
  /** The objects of a commit and its tree (no history), as `<id> <type>`. */
  async function commitAndTree(commit: string): Promise<string[]> {
    const listed = await repo.run("ls-tree", "-r", "-t", commit);
    return [
      `${commit} commit`,
      `${await repo.run("rev-parse", `${commit}^{tree}`)} tree`,
      ...listed.split("\n").map((l) => `${l.split(/\s/)[2]} ${l.split(/\s/)[1]}`),
    ].sort();
  }

  it("are its start commit and tree only: no history, nothing unreachable, however the agent asks", async () => {
    const { info, folder } = await setup();
    const secret = await repo.commit("oops", { ".env.production": "API_KEY=hunter2\n" });
    const leaked = await repo.run("rev-parse", `${secret}:.env.production`);
    await repo.run("reset", "-q", "--hard", "HEAD~1");
    const older = await repo.run("rev-parse", "HEAD");
    const head = await repo.commit("more", { "src/b.ts": "b\n" });
    const dir = await createWorkDir({ git: repo.git, repo: info, folder, label: "a.1", commit: head, record: { mission: "m-test", purpose: "a", attempt: 1 } });
    expect(await readable(dir)).toEqual(await commitAndTree(head));
    for (const id of [leaked, secret, older]) expect((await repo.git({ args: ["cat-file", "-e", id], cwd: dir.path, okCodes: [1, 128] })).code, id).not.toBe(0);
    // Nothing of the user's store on its alternates; the agent's git works as before.
    expect(dir.startObjects.some((o) => o.startsWith(info.objects.commonDir))).toBe(false);
    await writeFile(join(dir.path, "src/a.ts"), "changed\n");
    expect((await repo.git({ args: ["diff", "--stat"], cwd: dir.path })).stdout.toString()).toContain("src/a.ts");
    await repo.git({ args: ["checkout", "--", "src/a.ts"], cwd: dir.path });
    expect(await readFile(join(dir.path, "src/a.ts"), "utf8")).toBe("a\n");
  });

  it("are packed once per start commit, side by side; a later commit of the mission adds what it brings", async () => {
    const { folder, head } = await setup();
    let packs = 0;
    const git = testGit((args) => (packs += args.includes("pack-objects") ? 1 : 0));
    const info = await workRepo(git, repo.dir);
    const make = (label: string, commit: string) =>
      createWorkDir({ git, repo: info, folder, label, commit, record: { mission: "m-test", purpose: label.split(".")[0]!, attempt: 1 } });
    const first = await Promise.all(Array.from({ length: 6 }, (_, i) => make(`i${i}.1`, head)));
    expect(packs).toBe(1);
    // Each directory links the one pack into a folder of its own (the sandbox shows nothing else).
    expect(new Set(await Promise.all(first.map((d) => packFiles(d))))).toEqual(new Set([await packFiles(first[0]!)]));
    expect(first.every((d) => d.startObjects.length === 1 && d.startObjects[0] === join(d.root, "objects"))).toBe(true);
    // The queue moves on: a retry starts at the newer head, which descends from the packed one.
    const later = await repo.commit("integrated", { "src/c.ts": "c\n" });
    const retry = await make("i0.2", later);
    expect(packs).toBe(2);
    const [rootPack] = (await packFiles(first[0]!)).split(",");
    expect((await packFiles(retry)).split(",")).toEqual(expect.arrayContaining([rootPack]));
    expect((await packFiles(retry)).split(",")).toHaveLength(2);
    expect(await readable(retry)).toEqual(expect.arrayContaining(await commitAndTree(later)));
    // Whatever it reads is reachable from its start commit.
    const reachable = new Set((await repo.run("rev-list", "--objects", later)).split("\n").map((l) => l.split(" ")[0]!));
    expect((await readable(retry)).filter((l) => !reachable.has(l.split(" ")[0]!))).toEqual([]);
    // A commit that descends from none packed (a root commit of its own) gets a pack of its own.
    const sideways = await repo.run("commit-tree", "-m", "unrelated", `${later}^{tree}`);
    const apart = await make("x.1", sideways);
    expect((await packFiles(apart)).split(",")).toHaveLength(1);
    expect(await packFiles(apart)).not.toBe(rootPack);
    expect(await readable(apart)).toEqual(await commitAndTree(sideways));
    await Promise.all([...first, retry, apart].map((d) => removeWorkDir(d)));
    await removeEmptyMissionFolder(folder);
    await expect(stat(folder)).rejects.toMatchObject({ code: "ENOENT" });
  });
  it("can be read by the user the sandbox runs the agent as, whatever naruto's umask", async () => {
    const { info, folder, head } = await setup();
    // A hardened host's umask: what git writes would be naruto's alone (as root, the agent runs as another user).
    const before = process.umask(0o077);
    let dir;
    try {
      dir = await createWorkDir({ git: repo.git, repo: info, folder, label: "a.1", commit: head, record: { mission: "m-test", purpose: "a", attempt: 1 } });
    } finally {
      process.umask(before);
    }
    const [objects] = dir.startObjects;
    const modes: Record<string, string> = {};
    for (const path of [objects!, join(objects!, "pack"), ...(await readdir(join(objects!, "pack"))).map((n) => join(objects!, "pack", n))]) {
      modes[relative(objects!, path) || "."] = ((await stat(path)).mode & 0o777).toString(8);
    }
    for (const [path, mode] of Object.entries(modes)) expect(mode, path).toBe(path.startsWith("pack/") ? "444" : "755");
    await removeWorkDir(dir);
  });
});
