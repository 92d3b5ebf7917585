/**
 * naruto's one commit writer (fast-import.ts) against git itself: the trees it writes are what
 * applying the changes gives (a model kept here), the same chain gives the same commits in another
 * repository (what the Action's publish job relies on when it rebuilds the queue job's chain),
 * a commit of a tree is byte for byte `git commit-tree`'s, and the repository's own settings hold.
 */
import fc from "fast-check";
import { stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestRepo, testGit, type TestRepo } from "../../test/support/git-repo.ts";
import { writeCommits, type FileSpec } from "../../test/support/checkpoint-builder.ts";
import { runFastImport, writeTreeCommit, type ImportChange, type ImportCommit } from "./fast-import.ts";
import { createGit, gitText } from "./run-git.ts";

// Paths that are folders of one another, sort next to a folder ("a-b", "a.b" against "a/"), and
// hold spaces, quotes, newlines and bytes above 0x7f (latin1: one character per byte).
const POOL = ["a", "a/b", "a/b/c", "a/d", "a-b", "a.b", "e f/g", "\u00c3\u00bc/h", 'q"x/y\nz', "x/y/z/w", "x/v"];
const CONTENTS = ["one\n", "two\n", "three", "four\n", "a.b"];
const MODES = ["100644", "100755", "120000"] as const;

let mine: TestRepo;
let theirs: TestRepo;
let blobs: string[];

beforeAll(async () => {
  [mine, theirs] = await Promise.all([createTestRepo({ "README.md": "r\n" }), createTestRepo({ "README.md": "r\n" })]);
  blobs = [];
  for (const content of CONTENTS) {
    const [a, b] = await Promise.all([mine, theirs].map((r) => r.git({ args: ["hash-object", "-w", "--stdin"], cwd: r.dir, input: content })));
    blobs.push(a!.stdout.toString().trim());
    expect(b!.stdout.toString().trim()).toBe(blobs.at(-1));
  }
});
afterAll(async () => {
  await Promise.all([mine?.remove(), theirs?.remove()]);
});

/** The same base commit in both repositories (fixed dates: the same id). */
async function bothBase(files: Record<string, FileSpec>): Promise<string> {
  const root = await mine.run("rev-parse", "HEAD");
  const [a, b] = await Promise.all([mine, theirs].map((r) => writeCommits(r.git, r.dir, [{ base: root, files, pathBytes: "latin1" }])));
  expect(b).toEqual(a);
  return a?.[0] ?? "";
}

/** Every file of a commit, path (latin1) → `mode oid`. */
async function filesOf(repo: TestRepo, commit: string): Promise<Map<string, string>> {
  const { stdout } = await repo.git({ args: ["ls-tree", "-r", "-z", "--full-tree", commit], cwd: repo.dir });
  const files = new Map<string, string>();
  for (const line of stdout.toString("latin1").split("\0")) {
    if (line === "") continue;
    const [meta = "", path = ""] = line.split("\t");
    const [mode, , oid] = meta.split(" ");
    files.set(path, `${mode} ${oid}`);
  }
  return files;
}

/** fast-import's rules, as a model: deletions first (a folder goes whole), then files (a file in the way of a folder goes). */
function applyModel(files: Map<string, string>, changes: readonly ImportChange[]): void {
  const under = (path: string) => [...files.keys()].filter((p) => p === path || p.startsWith(`${path}/`));
  for (const c of changes) if (c.after === null) for (const p of under(c.path)) files.delete(p);
  for (const c of changes) {
    if (c.after === null || !("oid" in c.after)) continue;
    const parts = c.path.split("/");
    for (let i = 1; i < parts.length; i++) files.delete(parts.slice(0, i).join("/"));
    for (const p of under(c.path)) files.delete(p);
    files.set(c.path, `${c.after.mode} ${c.after.oid}`);
  }
}

const changeArb: fc.Arbitrary<ImportChange> = fc
  .record({
    path: fc.constantFrom(...POOL),
    after: fc.option(fc.record({ mode: fc.constantFrom(...MODES), blob: fc.nat({ max: CONTENTS.length - 1 }) }), { nil: null }),
  })
  .map(({ path, after }) => ({ path, after: after === null ? null : { mode: after.mode, oid: String(after.blob) } }));

const commitArb = fc.record({
  changes: fc.array(changeArb, { maxLength: 5 }),
  author: fc.constantFrom("Ada <ada@x> 1767225600 +0000", "J\u00f6rg M <j@x> 1 -0130", "A B <> 99 +1400"),
  encoding: fc.constantFrom(null, "ISO-8859-1"),
  message: fc.constantFrom("one\n", "no newline", "", "t\u00e9xt\n\nbody\n"),
});

describe("runFastImport, naruto's one commit writer", () => {
  it("writes the trees its changes give, and the same commits in another repository (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(POOL), fc.array(commitArb, { minLength: 1, maxLength: 4 }), async (present, specs) => {
        const files: Record<string, FileSpec> = {};
        for (const path of present) {
          if (Object.keys(files).some((p) => p.startsWith(`${path}/`) || path.startsWith(`${p}/`))) continue;
          files[path] = `base of ${path}\n`;
        }
        const from = await bothBase(files);
        const commits: ImportCommit[] = specs.map((s) => ({
          author: s.author,
          committer: "naruto <naruto@localhost> 1767225601 +0000",
          encoding: s.encoding,
          message: Buffer.from(s.message, "utf8").toString("latin1"),
          changes: s.changes.map((c) => ({
            path: c.path,
            after: c.after === null || !("oid" in c.after) ? null : { mode: c.after.mode, oid: blobs[Number(c.after.oid)] ?? "" },
          })),
        }));
        const [ours, others] = await Promise.all([mine, theirs].map((r) => runFastImport({ git: r.git, repoDir: r.dir, from, commits })));
        expect(ours).toEqual(others);
        const model = await filesOf(mine, from);
        for (const [i, commit] of commits.entries()) {
          applyModel(model, commit.changes);
          const id = ours?.[i] ?? "";
          expect(await filesOf(mine, id)).toEqual(model);
          expect(await mine.run("rev-parse", `${id}^`)).toBe(i === 0 ? from : ours?.[i - 1]);
          const raw = (await mine.git({ args: ["cat-file", "commit", id], cwd: mine.dir })).stdout.toString("latin1");
          expect(raw.slice(raw.indexOf("\n\n") + 2)).toBe(commit.message);
          expect(raw).toContain(`\nauthor ${commit.author}\ncommitter ${commit.committer}\n`);
        }
      }),
      { numRuns: 25 },
    );
    // What it wrote is whole and valid by git's own check.
    await mine.run("fsck", "--strict", "--no-dangling", "--no-progress");
  }, 120_000);

  it("writes new content inline, a root commit, and a commit that starts from an empty tree", async () => {
    const who = "naruto <naruto@localhost> 1767225600 +0000";
    const file = (path: string, text: string): ImportChange => ({ path, after: { mode: "100644", content: Buffer.from(text) } });
    const [root = ""] = await runFastImport({
      git: mine.git,
      repoDir: mine.dir,
      from: null,
      commits: [
        {
          author: who,
          committer: who,
          encoding: null,
          message: "v1\n",
          changes: [file("document.json", "{}\n"), file("items/0000/0000.json", '{ "ü": 1 }\n')],
        },
      ],
    });
    expect(await mine.run("rev-list", "--parents", "-1", root)).toBe(root);
    expect(await mine.run("show", `${root}:items/0000/0000.json`)).toBe('{ "ü": 1 }');
    const [next = ""] = await runFastImport({
      git: mine.git,
      repoDir: mine.dir,
      from: root,
      commits: [{ author: who, committer: who, encoding: null, message: "v2\n", changes: [file("mission.json", "{}\n")], deleteAll: true }],
    });
    expect(await mine.run("ls-tree", "-r", "--name-only", next)).toBe("mission.json");
    expect(await mine.run("rev-parse", `${next}^`)).toBe(root);
  });
});

describe("writeTreeCommit", () => {
  it("writes the commit `git commit-tree` writes for the same tree, parent, identity and date", async () => {
    const head = await mine.run("rev-parse", "HEAD");
    const tree = await mine.run("rev-parse", `${head}^{tree}`);
    const at = new Date("2026-11-30T06:00:00.700Z");
    const identity = { name: "naruto Ü", email: "naruto@users.noreply.github.com" };
    const env = {
      GIT_AUTHOR_NAME: identity.name,
      GIT_AUTHOR_EMAIL: identity.email,
      GIT_COMMITTER_NAME: identity.name,
      GIT_COMMITTER_EMAIL: identity.email,
      GIT_AUTHOR_DATE: "@1796018400 +0000",
      GIT_COMMITTER_DATE: "@1796018400 +0000",
    };
    for (const parent of [head, null]) {
      const written = await writeTreeCommit({ git: mine.git, repoDir: mine.dir, tree, parent, identity, at, message: "checkpoint ü\n\nNaruto-Item: a\n" });
      const args = ["commit-tree", tree, ...(parent === null ? [] : ["-p", parent])];
      expect(written).toBe(await gitText(mine.git, { args, cwd: mine.dir, env, input: "checkpoint ü\n\nNaruto-Item: a\n" }));
    }
    // A message without its last newline gets one, as commit-tree gives it.
    const bare = await writeTreeCommit({ git: mine.git, repoDir: mine.dir, tree, parent: head, identity, at, message: "no newline" });
    expect(bare).toBe(await gitText(mine.git, { args: ["commit-tree", tree, "-p", head, "-m", "no newline"], cwd: mine.dir, env }));
  });

  it("honours the repository's core.sharedRepository, which naruto's own object files once bypassed", async () => {
    const repo = await createTestRepo({ "a.txt": "a\n" });
    try {
      await repo.run("config", "core.sharedRepository", "0660");
      const head = await repo.run("rev-parse", "HEAD");
      const tree = await repo.run("rev-parse", `${head}^{tree}`);
      const commit = await writeTreeCommit({
        git: repo.git,
        repoDir: repo.dir,
        tree,
        parent: head,
        identity: { name: "n", email: "n@x" },
        at: new Date(0),
        message: "shared\n",
      });
      const file = join(repo.dir, ".git/objects", commit.slice(0, 2), commit.slice(2));
      // git makes objects read-only, for the group too: 0440 under 0660.
      expect(((await stat(file)).mode & 0o777).toString(8)).toBe("440");
    } finally {
      await repo.remove();
    }
  });
});

describe("writeCommits through the repository's long-running fast-import", () => {
  it("writes chain after chain with one process: each the commits a process of its own writes, on disk before the answer, no ref left", async () => {
    const spawned: string[] = [];
    const session = testGit((args) => spawned.push(args[0] ?? ""));
    const env = { PATH: process.env.PATH, HOME: tmpdir(), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
    const oneShot = createGit({ env, sessions: false });
    let head: string | null = await mine.run("rev-parse", "HEAD");
    for (let i = 0; i < 8; i++) {
      const who = `n\u00c3\u00bc <n@x> ${1_796_018_400 + i} +0000`;
      const commits: ImportCommit[] = [0, 1].map((j) => ({
        author: who,
        committer: who,
        encoding: null,
        message: `save ${i}.${j} \u00c3\u00bc\n`,
        changes: [{ path: `m/\u00c3\u00bc ${j}.json`, after: { mode: "100644", content: Buffer.from(`{"seq":${i}} \u00fc\n`, "utf8") } }],
        ...(i === 3 ? { deleteAll: true } : {}),
      }));
      // A root chain now and then: the long-running process starts it on nothing, not on its last write.
      const from: string | null = i === 5 ? null : head;
      const ids = await runFastImport({ git: session, repoDir: mine.dir, from, commits });
      expect(ids).toEqual(await runFastImport({ git: oneShot, repoDir: mine.dir, from, commits }));
      // Another process reads them at once, and a ref may point at them.
      expect(await gitText(oneShot, { args: ["cat-file", "-t", ids[1]!], cwd: mine.dir })).toBe("commit");
      if (from === null) expect(await gitText(oneShot, { args: ["rev-list", "--count", ids[1]!], cwd: mine.dir })).toBe("2");
      head = ids[1]!;
    }
    expect(spawned.filter((a) => a === "fast-import")).toEqual(["fast-import"]);
    expect(await mine.run("for-each-ref", "refs/naruto/")).toBe("");
  });
});
