import { afterEach, describe, expect, it } from "vitest";
import { createWorkerFixture, type WorkerFixture } from "../../test/support/worker-fixture.ts";
import { changedPaths, listChanges, parseDiffTree, type Change } from "./changes.ts";
import { snapshotWorktree } from "./checkpoint.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);
const Z = "0".repeat(40);

describe("parseDiffTree", () => {
  it("reads raw records with numstat, including renames and binary files", () => {
    const out = [
      `:100644 100755 ${A} ${B} M`, "run.sh",
      `:100644 100644 ${A} ${B} R087`, "old name.ts", "new\nname.ts",
      `:000000 100644 ${Z} ${B} A`, ":looks like a record",
      `:100644 000000 ${A} ${Z} D`, "gone.bin",
      "1\t0\trun.sh",
      "2\t1\t", "old name.ts", "new\nname.ts",
      "1\t0\t:looks like a record",
      "-\t-\tgone.bin",
      "",
    ].join("\0");
    expect(parseDiffTree(out)).toEqual([
      { kind: "modified", path: "run.sh", from: null, oldMode: "100644", newMode: "100755", oldOid: A, newOid: B, binary: false, symlinkTarget: null },
      { kind: "renamed", path: "new\nname.ts", from: "old name.ts", oldMode: "100644", newMode: "100644", oldOid: A, newOid: B, binary: false, symlinkTarget: null },
      { kind: "added", path: ":looks like a record", from: null, oldMode: null, newMode: "100644", oldOid: null, newOid: B, binary: false, symlinkTarget: null },
      { kind: "deleted", path: "gone.bin", from: null, oldMode: "100644", newMode: null, oldOid: A, newOid: null, binary: true, symlinkTarget: null },
    ]);
  });

  it("reads empty output as no change", () => {
    expect(parseDiffTree(Buffer.alloc(0))).toEqual([]);
  });
});

describe("listChanges on a real work tree", () => {
  let f: WorkerFixture;
  afterEach(() => f.repo.remove());

  async function changes(): Promise<Change[]> {
    const { git } = f.repo;
    const head = await f.agent.git("rev-parse", "HEAD");
    const tree = await snapshotWorktree({ git, worktree: f.worktree, head });
    return listChanges({ git, gitDir: f.worktree.gitDir, base: f.worktree.start, tree });
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
    expect((await changes()).map((c) => [c.path, c.binary])).toEqual([["img.bin", true], ["new.bin", true], ["text.txt", false]]);
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
    await import("node:fs/promises").then((fs) => fs.mkdir(`${f.worktree.path}/empty/dir`, { recursive: true }));
    expect(await changes()).toEqual([]);
  });
});
