/**
 * What an agent left in its work directory, read by naruto's own git (snapshot.ts) and listed
 * against the start commit (src/gate/changes.ts), on real repositories and real work directories.
 */
import { execFile } from "node:child_process";
import { mkdir, stat, truncate, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { promisify } from "node:util";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeForgedIndex } from "../../test/support/forged-index.ts";
import { createWorkerFixture, type WorkerFixture } from "../../test/support/worker-fixture.ts";
import { changedPaths, DEFAULT_MAX_FILE_SIZE, listChanges, type Change } from "../gate/index.ts";
import { viewCall } from "./git-view.ts";
import { acceptObjects } from "./quarantine.ts";
import { snapshotWorkDir } from "./snapshot.ts";

const LIMIT = { maxFileSize: DEFAULT_MAX_FILE_SIZE };

describe("what an agent left in its work directory", () => {
  let f: WorkerFixture;
  afterEach(() => f.remove());

  async function changes(): Promise<Change[]> {
    const { git } = f.repo;
    const snapshot = await snapshotWorkDir(git, f.workDir, LIMIT);
    return listChanges({ git, call: (args, extra) => viewCall(snapshot.view, args, extra), base: f.workDir.start, tree: snapshot.tree });
  }
  const summary = (cs: Change[]) => cs.map((c) => [c.kind, c.from, c.path].filter((x) => x !== null).join(" "));

  it("lists modified, added and deleted files", async () => {
    f = await createWorkerFixture({ "keep.txt": "k\n", "edit.txt": "one\n", "drop.txt": "bye\n", "dir/a.txt": "a\n", "dir/b.txt": "b\n" });
    await f.agent.write({ "edit.txt": "two\n", "new/deep/file.txt": "hi\n" });
    await f.agent.remove("drop.txt");
    await f.agent.remove("dir");
    expect(summary(await changes())).toEqual(["deleted dir/a.txt", "deleted dir/b.txt", "deleted drop.txt", "modified edit.txt", "added new/deep/file.txt"]);
  });

  it("reports a rename with both paths, and both count as changed", async () => {
    const body = "line\n".repeat(20);
    f = await createWorkerFixture({ "src/old.ts": body });
    await f.agent.rename("src/old.ts", "lib/new.ts");
    const cs = await changes();
    expect(summary(cs)).toEqual(["renamed src/old.ts lib/new.ts"]);
    expect(changedPaths(cs)).toEqual(["lib/new.ts", "src/old.ts"]);
  });

  it("reports a mode change (the executable bit) with the same content", async () => {
    f = await createWorkerFixture({ "run.sh": "#!/bin/sh\n" });
    await f.agent.chmod("run.sh", 0o755);
    expect(await changes()).toMatchObject([{ kind: "modified", path: "run.sh", oldMode: "100644", newMode: "100755" }]);
  });

  it("marks binary files", async () => {
    f = await createWorkerFixture({ "img.bin": Buffer.from([0, 1, 2, 3]), "text.txt": "t\n" });
    await f.agent.write({ "img.bin": Buffer.from([0, 9, 9, 9, 0]), "new.bin": Buffer.from([0xff, 0, 0xfe]), "text.txt": "u\n" });
    expect((await changes()).map((c) => [c.path, c.binary])).toEqual([
      ["img.bin", true],
      ["new.bin", true],
      ["text.txt", false],
    ]);
  });

  it("lists untracked files but not ignored ones", async () => {
    f = await createWorkerFixture({ ".gitignore": "build/\n*.log\n", "README.md": "r\n" });
    await f.agent.write({ "build/out.js": "x", "debug.log": "x", "sub/trace.log": "x", "notes.md": "n\n", "sub/kept.txt": "k\n" });
    expect(summary(await changes())).toEqual(["added notes.md", "added sub/kept.txt"]);
  });

  it("reports symlinks created, retargeted and replacing a file, with their targets", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n", "file.txt": "f\n" });
    await f.agent.symlink("a.txt", "old-link");
    await f.agent.git("add", "old-link");
    await f.agent.git("commit", "-qm", "agent adds a link");
    await f.agent.remove("old-link");
    await f.agent.symlink("file.txt", "old-link");
    await f.agent.symlink("../outside", "new-link");
    await f.agent.remove("file.txt");
    await f.agent.symlink("a.txt", "file.txt");
    const cs = await changes();
    expect(cs.map((c) => [c.kind, c.path, c.newMode, c.symlinkTarget])).toEqual([
      ["type_changed", "file.txt", "120000", "a.txt"],
      ["added", "new-link", "120000", "../outside"],
      ["added", "old-link", "120000", "file.txt"],
    ]);
  });

  it("keeps paths with spaces, quotes, newlines and non-ASCII characters exact", async () => {
    const odd = ["with space.txt", 'quote"d.txt', "back\\slash.txt", "new\nline.txt", "café/ünï.txt", "tab\tbed.txt", "日本.md"];
    f = await createWorkerFixture({ "with space.txt": "old\n" });
    await f.agent.write(Object.fromEntries(odd.map((p) => [p, `new ${p}\n`])));
    expect(changedPaths(await changes())).toEqual([...odd].sort());
  });

  it("counts the agent's commits, staged and unstaged changes together", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
    await f.agent.write({ "a.txt": "committed\n" });
    await f.agent.git("commit", "-qam", "agent commit");
    await f.agent.write({ "b.txt": "staged\n" });
    await f.agent.git("add", "b.txt");
    await f.agent.write({ "c.txt": "unstaged\n" });
    expect(summary(await changes())).toEqual(["modified a.txt", "modified b.txt", "modified c.txt"]);
  });

  it("takes what is on disk, even when the agent's index says otherwise", async () => {
    f = await createWorkerFixture({ ".gitignore": "*.gen\n", "hidden.txt": "h\n" });
    await f.agent.write({ "hidden.txt": "changed behind a flag\n", "forced.gen": "wanted\n" });
    await f.agent.git("update-index", "--assume-unchanged", "hidden.txt");
    await f.agent.git("add", "-f", "forced.gen");
    expect(summary(await changes())).toEqual(["added forced.gen", "modified hidden.txt"]);
  });

  it("keeps an ignored file the agent committed on purpose", async () => {
    f = await createWorkerFixture({ ".gitignore": "*.gen\n" });
    await f.agent.write({ "schema.gen": "generated, committed\n" });
    await f.agent.git("add", "-f", "schema.gen");
    await f.agent.git("commit", "-qm", "agent commits generated file");
    expect(summary(await changes())).toEqual(["added schema.gen"]);
  });

  it("lists nothing when nothing changed, and ignores empty directories", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.write({ "a.txt": "a\n" });
    await f.agent.git("status", "--porcelain");
    await mkdir(join(f.workDir.path, "empty/dir"), { recursive: true });
    expect(await changes()).toEqual([]);
  });

  it("reads bytes as they are: no attribute the repository or the agent wrote converts or hides them", async () => {
    f = await createWorkerFixture({ ".gitattributes": "*.txt text eol=crlf\n", "a.txt": "one\r\ntwo\r\n", "b.bin": "plain\n" });
    // The checkout holds the committed bytes exactly (no eol conversion on the way out) …
    const { readFile } = await import("node:fs/promises");
    expect(await readFile(join(f.workDir.path, "a.txt"), "utf8")).toBe(await f.repo.run("cat-file", "blob", "HEAD:a.txt").then((b) => `${b}\n`));
    expect(await readFile(join(f.workDir.path, "a.txt"), "utf8")).not.toContain("\r");
    expect(await changes()).toEqual([]);
    // … and an agent's `-diff`, `filter` or `ident` cannot make a text change look binary or vanish.
    await f.agent.write({ ".gitattributes": "* -diff filter=hide ident\n", "b.bin": "changed $Id$\n" });
    const cs = await changes();
    expect(cs.map((c) => [c.path, c.binary])).toEqual([
      [".gitattributes", false],
      ["b.bin", false],
    ]);
  });

  it("never runs what the agent planted in its own repository's config or hooks", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    const marker = join(f.workRoot, "planted-ran");
    const plant = `#!/bin/sh\necho ran >> ${marker}\n`;
    await writeFile(join(f.workDir.path, "planted.sh"), plant, { mode: 0o755 });
    await f.agent.git("config", "core.fsmonitor", join(f.workDir.path, "planted.sh"));
    await f.agent.git("config", "core.hooksPath", f.workDir.path);
    await f.agent.git("config", "filter.hide.clean", join(f.workDir.path, "planted.sh"));
    await f.agent.write({ ".gitattributes": "* filter=hide\n", "a.txt": "b\n" });
    const cs = await changes();
    expect(changedPaths(cs)).toEqual([".gitattributes", "a.txt", "planted.sh"]);
    const { access } = await import("node:fs/promises");
    await expect(access(marker)).rejects.toThrow();
  });

  it("reads the directory itself, not the repository a .git file the agent wrote points to", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    const other = await createWorkerFixture({ "other.txt": "o\n" });
    try {
      await f.agent.remove(".git");
      await f.agent.write({ ".git": `gitdir: ${join(other.repo.dir, ".git")}\n`, "a.txt": "edited\n" });
      expect(summary(await changes())).toEqual(["modified a.txt"]);
    } finally {
      await other.remove();
    }
  });
});

/**
 * Part of the gate (docs/architecture.md): nothing the agent staged is dropped, and names git will not
 * take are refused by name instead of failing or vanishing. Before, a staged gitlink was dropped
 * (the snapshot was built from the files on disk, where a gitlink is an empty folder), a planted
 * `.git` folder vanished, and `.GIT` or `git~1` made `git add -A` throw.
 */
describe("what an agent staged that is not a file, and names git will not take", () => {
  let f: WorkerFixture;
  afterEach(() => f.remove());
  const SUB = "0123456789abcdef0123456789abcdef01234567";

  async function snapshot() {
    const s = await snapshotWorkDir(f.repo.git, f.workDir, LIMIT);
    // The snapshot's objects are in its view's quarantine: the view reads them.
    const listed = await f.repo.git(viewCall(s.view, ["ls-tree", "-r", "-z", s.tree]));
    const entries = listed.stdout
      .toString("utf8")
      .split("\0")
      .filter((l) => l !== "")
      .map((l) => `${l.split(" ")[0]} ${l.slice(l.indexOf("\t") + 1)}`);
    return { entries, refused: s.refused.map((r) => `${r.path} (${r.rule})`) };
  }

  it("takes a gitlink the agent staged, with the commit its index names", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.git("update-index", "--add", "--cacheinfo", `160000,${SUB},vendor/lib`);
    expect(await snapshot()).toEqual({ entries: ["100644 a.txt", "160000 vendor/lib"], refused: [] });
    const s = await snapshotWorkDir(f.repo.git, f.workDir, LIMIT);
    expect((await f.repo.git(viewCall(s.view, ["rev-parse", `${s.tree}:vendor/lib`]))).stdout.toString().trim()).toBe(SUB);
  });

  it("takes a gitlink the agent committed, and one that replaces files", async () => {
    f = await createWorkerFixture({ "vendor/lib/old.txt": "o\n" });
    await f.agent.git("rm", "-rq", "--cached", "vendor/lib");
    await f.agent.git("update-index", "--add", "--cacheinfo", `160000,${SUB},vendor/lib`);
    await f.agent.git("commit", "-qm", "vendor lib as a submodule");
    // The submodule's checkout is on disk, with a .git of its own: none of it is the agent's work.
    await f.agent.write({ "vendor/lib/.git": "gitdir: ../../.git/modules/lib\n", "vendor/lib/new.txt": "n\n" });
    expect(await snapshot()).toEqual({ entries: ["160000 vendor/lib"], refused: [] });
  });

  it("keeps a submodule of the start commit as it is, and removes it with its folder", async () => {
    f = await createWorkerFixture(
      { "a.txt": "a\n" },
      {
        prepare: async (r) => {
          await r.run("update-index", "--add", "--cacheinfo", `160000,${SUB},sub`);
          await r.run("commit", "-qm", "sub");
        },
      },
    );
    await f.agent.write({ "a.txt": "b\n" });
    expect((await snapshot()).entries).toEqual(["100644 a.txt", "160000 sub"]);
    await f.agent.remove("sub");
    expect((await snapshot()).entries).toEqual(["100644 a.txt"]);
  });

  it("refuses a planted .git folder and the spellings of .git by name, and takes the rest", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.write({ "src/sub/.git/config": "[core]\n", "src/.GIT/hooks/x": "x\n", "git~1/x": "x\n", ".git. /x": "x\n", "src/ok.txt": "ok\n" });
    expect(await snapshot()).toEqual({
      entries: ["100644 a.txt", "100644 src/ok.txt"],
      refused: [".git.  (dotgit)", "git~1 (dotgit)", "src/.GIT (dotgit)", "src/sub/.git (dotgit)"],
    });
  });

  it("refuses a nested repository, even one without a commit (where git add fails)", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.git("init", "-q", "lib");
    await f.agent.write({ "lib/x.txt": "x\n" });
    expect(await snapshot()).toEqual({ entries: ["100644 a.txt"], refused: ["lib/.git (dotgit)"] });
  });

  it("looks at nothing ignored: a .git inside node_modules is not the agent's work", async () => {
    f = await createWorkerFixture({ ".gitignore": "node_modules/\nbuild/*\n!build/keep\n", "build/keep": "k\n" });
    await f.agent.write({ "node_modules/dep/.git/HEAD": "ref: x\n", "node_modules/dep/index.js": "x\n", "build/out/.git/HEAD": "x\n", "src/a.ts": "a\n" });
    expect(await snapshot()).toEqual({ entries: ["100644 .gitignore", "100644 build/keep", "100644 src/a.ts"], refused: [] });
  });

  it("refuses a gitlink or an ignored file staged under a name git refuses, without failing", async () => {
    f = await createWorkerFixture({ ".gitignore": "*.gen\n", "a.txt": "a\n" });
    await f.agent.write({ ".GIT/x.gen": "x\n", "ok.gen": "ok\n" });
    // git's own commands refuse to stage `.GIT` paths; an index the agent writes by hand need not.
    const blob = await f.repo.run("rev-parse", "HEAD:a.txt");
    await writeForgedIndex(join(f.workDir.path, ".git", "index"), [
      { path: ".gitignore", mode: 0o100644, oid: await f.repo.run("rev-parse", "HEAD:.gitignore") },
      { path: ".GIT/x.gen", mode: 0o100644, oid: blob },
      { path: "a.txt", mode: 0o100644, oid: blob },
      { path: "git~1/hooks", mode: 0o160000, oid: SUB },
      { path: "ok.gen", mode: 0o100644, oid: blob },
    ]);
    expect(await snapshot()).toEqual({
      entries: ["100644 .gitignore", "100644 a.txt", "100644 ok.gen"],
      refused: ["git~1/hooks (dotgit)", ".GIT/x.gen (dotgit)"],
    });
  });
});

describe("a same-size edit in the second of the checkout (git's racy timestamps)", () => {
  let f: WorkerFixture;
  afterEach(() => f.remove());

  it("is seen even when naruto reads the directory in a later second", async () => {
    // The edit has to land in the same second as the checkout, with the same size: the stat data
    // naruto's index holds then matches the file, and only git's racy-timestamp check (an entry
    // not older than its index is read again) sees the change. Retried until the edit lands so.
    for (let tries = 0; ; tries++) {
      f = await createWorkerFixture({ "a.txt": "a\n" });
      const checkedOut = Math.floor((await stat(join(f.workDir.path, "a.txt"))).mtimeMs / 1000);
      await f.agent.write({ "a.txt": "b\n" });
      const edited = Math.floor((await stat(join(f.workDir.path, "a.txt"))).mtimeMs / 1000);
      if (edited === checkedOut) break;
      if (tries === 20) throw new Error("could not edit a file in the second of its checkout in 20 tries");
      await f.remove();
    }
    // naruto reads the directory in a later second, as it does after any real agent.
    await new Promise((done) => setTimeout(done, 1000 - (Date.now() % 1000) + 50));
    const snapshot = await snapshotWorkDir(f.repo.git, f.workDir, LIMIT);
    const cs = await listChanges({ git: f.repo.git, call: (args, extra) => viewCall(snapshot.view, args, extra), base: f.workDir.start, tree: snapshot.tree });
    expect(cs.map((c) => [c.kind, c.path])).toEqual([["modified", "a.txt"]]);
  });
});

/**
 * Issue 31, part 7: before anything is hashed, the work tree is walked with `lstat`. Before, a
 * named pipe or socket was dropped without a word, and a file over the limit was hashed into the
 * user's object store (a 3 GiB sparse file cost 25 s of CPU) before the gate refused it.
 */
describe("what git must not be given, found before anything is hashed", () => {
  let f: WorkerFixture;
  afterEach(() => f.remove());
  const SMALL = { maxFileSize: 1024 };

  async function snapshot(limit = SMALL) {
    const s = await snapshotWorkDir(f.repo.git, f.workDir, limit);
    const listed = await f.repo.git(viewCall(s.view, ["ls-tree", "-r", "--name-only", "-z", s.tree]));
    return {
      files: listed.stdout
        .toString("utf8")
        .split("\0")
        .filter((l) => l !== ""),
      refused: s.refused.map((r) => `${r.path} (${r.rule})`),
      snapshot: s,
    };
  }

  it("refuses a named pipe, a socket and a device by name, without opening them (a pipe would block)", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.write({ "src/ok.txt": "ok\n" });
    await promisify(execFile)("mkfifo", [join(f.workDir.path, "src", "pipe")]);
    // Over a tracked file as well: `git add` would fail on it.
    await f.agent.remove("a.txt");
    await promisify(execFile)("mkfifo", [join(f.workDir.path, "a.txt")]);
    const server = createServer();
    await new Promise<void>((done) => server.listen(join(f.workDir.path, "src", "socket"), done));
    // Only root makes devices (CI runs as root); elsewhere the pipe and the socket stand for them.
    const device =
      process.getuid?.() === 0 &&
      (await promisify(execFile)("mknod", [join(f.workDir.path, "src", "null"), "c", "1", "3"]).then(
        () => true,
        () => false,
      ));
    try {
      const { files, refused } = await snapshot();
      expect(files).toEqual(["a.txt", "src/ok.txt"]);
      expect(refused).toEqual(["a.txt (special_file)", ...(device ? ["src/null (special_file)"] : []), "src/pipe (special_file)", "src/socket (special_file)"]);
    } finally {
      server.close();
    }
  });

  it("removes a named pipe where git opens a folder's .gitignore or .gitattributes (git would block on it), and refuses it", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n", "src/b.txt": "b\n" });
    await f.agent.write({ "src/ok.txt": "ok\n" });
    for (const p of ["src/.gitignore", ".gitattributes", "deep/er/.gitignore"]) {
      await mkdir(join(f.workDir.path, p, ".."), { recursive: true });
      await promisify(execFile)("mkfifo", [join(f.workDir.path, p)]);
    }
    const { files, refused } = await snapshot();
    expect(files).toEqual(["a.txt", "src/b.txt", "src/ok.txt"]);
    expect(refused).toEqual([".gitattributes (special_file)", "deep/er/.gitignore (special_file)", "src/.gitignore (special_file)"]);
    await expect(stat(join(f.workDir.path, "src/.gitignore"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("finds such a pipe even past the walk's budget, in a tree far larger than its checkout", async () => {
    f = await createWorkerFixture({ ".gitignore": "node_modules/\n", "a.txt": "a\n" });
    // More entries than the first walk looks at closely (10,000 beyond twice the checkout's).
    const many = join(f.workDir.path, "node_modules", "dep");
    await mkdir(many, { recursive: true });
    await Promise.all(Array.from({ length: 10_100 }, (_, i) => writeFile(join(many, `f${i}.js`), "")));
    await mkdir(join(f.workDir.path, "src", "deep", "er"), { recursive: true });
    await promisify(execFile)("mkfifo", [join(f.workDir.path, "src", "deep", "er", ".gitignore")]);
    expect((await snapshot()).refused).toEqual(["src/deep/er/.gitignore (special_file)"]);
  });

  it("refuses a file over the limit by its size on disk, never reading it: a 64 GiB sparse file costs nothing", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.write({ "big.bin": Buffer.alloc(2048, 1), "small.txt": "s\n", "sparse.bin": "" });
    // Hashing it would take minutes: the test would time out.
    await truncate(join(f.workDir.path, "sparse.bin"), 64 * 1024 ** 3);
    const { files, refused, snapshot: s } = await snapshot();
    expect(files).toEqual(["a.txt", "small.txt"]);
    expect(refused).toEqual(["big.bin (file_too_large)", "sparse.bin (file_too_large)"]);
    expect(s.refused.find((r) => r.path === "sparse.bin")?.detail).toBe(
      "68719476736 bytes, more than limits.max_file_size (1024 bytes); refused before anything read it",
    );
    // Nothing of them was hashed: the blob of the 2 KiB file is nowhere, not even in the quarantine.
    const blob = (await f.repo.git({ args: ["hash-object", "--stdin"], cwd: f.repo.dir, input: Buffer.alloc(2048, 1) })).stdout.toString().trim();
    expect((await f.repo.git({ ...viewCall(s.view, ["cat-file", "-e", blob]), okCodes: [1, 128] })).code).not.toBe(0);
  });

  it("leaves a file over the limit that the start commit holds, unchanged, and refuses it changed", async () => {
    f = await createWorkerFixture({ "big.bin": Buffer.alloc(2048, 1), "a.txt": "a\n" });
    await f.agent.write({ "a.txt": "b\n" });
    expect(await snapshot().then(({ files, refused }) => ({ files, refused }))).toEqual({ files: ["a.txt", "big.bin"], refused: [] });
    await f.agent.write({ "big.bin": Buffer.alloc(4096, 2) });
    expect((await snapshot()).refused).toEqual(["big.bin (file_too_large)"]);
  });

  it("refuses an ignored file over the limit that the agent staged on purpose", async () => {
    f = await createWorkerFixture({ ".gitignore": "*.gen\n", "a.txt": "a\n" });
    await f.agent.write({ "out.gen": Buffer.alloc(4096, 3), "ok.gen": "ok\n" });
    await f.agent.git("add", "-f", "ok.gen", "out.gen");
    const { files, refused } = await snapshot();
    expect(files).toEqual([".gitignore", "a.txt", "ok.gen"]);
    expect(refused).toEqual(["out.gen (file_too_large)"]);
  });

  it("looks at nothing ignored: a big file or a pipe in an ignored folder is not the agent's work", async () => {
    f = await createWorkerFixture({ ".gitignore": "dist/\n", "a.txt": "a\n" });
    await f.agent.write({ "dist/bundle.js": Buffer.alloc(4096, 4), "src/a.ts": "a\n" });
    await promisify(execFile)("mkfifo", [join(f.workDir.path, "dist", "pipe")]);
    expect(await snapshot().then(({ files, refused }) => ({ files, refused }))).toEqual({ files: [".gitignore", "a.txt", "src/a.ts"], refused: [] });
  });
});

describe("the quarantine: what naruto hashed reaches the repository's store only when accepted", () => {
  let f: WorkerFixture;
  afterEach(() => f.remove());

  it("keeps the snapshot's objects out of the store until acceptObjects moves them there", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.write({ "new/file.txt": "new\n", "a.txt": "changed\n" });
    const s = await snapshotWorkDir(f.repo.git, f.workDir, LIMIT);
    const inStore = async (oid: string) => (await f.repo.git({ args: ["cat-file", "-e", oid], cwd: f.repo.dir, okCodes: [1, 128] })).code === 0;
    const blob = (await f.repo.git(viewCall(s.view, ["rev-parse", `${s.tree}:new/file.txt`]))).stdout.toString().trim();
    expect([await inStore(s.tree), await inStore(blob)]).toEqual([false, false]);
    const accepted = await acceptObjects(s.view);
    expect(accepted.incoming).toBeUndefined();
    expect([await inStore(s.tree), await inStore(blob)]).toEqual([true, true]);
    await expect(stat(s.view.incoming!)).rejects.toThrow();
    // git reads them as its own.
    expect(await f.repo.run("cat-file", "-p", blob)).toBe("new");
  });
});
