import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { writeCommits, type FileSpec } from "../../test/support/checkpoint-builder.ts";
import { writeChain } from "./chain-write.ts";
import { runFastImport, type ImportCommit } from "../git/index.ts";
import { looseObjectsDir } from "../git/index.ts";
import type { PathChange } from "../git/index.ts";

// Paths that are folders of one another, sort next to a folder ("a-b", "a.b" against "a/"), and
// hold spaces, quotes, newlines and bytes above 0x7f (latin1: one character per byte).
const POOL = ["a", "a/b", "a/b/c", "a/d", "a-b", "a.b", "e f/g", "\u00c3\u00bc/h", 'q"x/y\nz', "x/y/z/w", "x/v"];
const CONTENTS = ["one\n", "two\n", "three", "four\n", "a.b"];
const MODES = ["100644", "100755", "120000", "160000"] as const;
const GITLINK = "1".repeat(40);

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

/** Both writers on the same chain: naruto's in `mine`, fast-import in `theirs`. */
async function both(from: string, commits: ImportCommit[]): Promise<{ mine: string[] | null; theirs: string[] }> {
  const objectsDir = (await looseObjectsDir(mine.git, mine.dir)) ?? "";
  const written = await writeChain({ git: mine.git, repoDir: mine.dir, objectsDir, from, commits });
  const imported = await runFastImport({ git: theirs.git, repoDir: theirs.dir, from, commits });
  return { mine: written, theirs: imported };
}

const changeArb: fc.Arbitrary<PathChange> = fc.record({
  path: fc.constantFrom(...POOL),
  after: fc.option(
    fc.record({ mode: fc.constantFrom(...MODES), blob: fc.nat({ max: CONTENTS.length - 1 }) }).map(({ mode, blob }) => ({ mode, oid: mode === "160000" ? GITLINK : String(blob) })),
    { nil: null },
  ),
}).map(({ path, after }) => ({ path, before: null, after }));

const commitArb = fc.record({
  changes: fc.array(changeArb, { maxLength: 5 }),
  author: fc.constantFrom("Ada <ada@x> 1767225600 +0000", "J\u00f6rg M <j@x> 1 -0130", "A B <> 99 +1400"),
  encoding: fc.constantFrom(null, "ISO-8859-1"),
  message: fc.constantFrom("one\n", "no newline", "", "t\u00e9xt\n\nbody\n"),
});

describe("writeChain", () => {
  it("writes, object for object, the chain fast-import writes (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(POOL), fc.array(commitArb, { minLength: 1, maxLength: 4 }), async (present, specs) => {
        // A base whose paths are never a folder of one another.
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
          changes: s.changes.map((c) => ({ ...c, after: c.after === null ? null : { mode: c.after.mode, oid: c.after.mode === "160000" ? GITLINK : (blobs[Number(c.after.oid)] ?? "") } })),
        }));
        const out = await both(from, commits);
        expect(out.mine).toEqual(out.theirs);
      }),
      { numRuns: 60 },
    );
    // What naruto wrote is whole and valid by git's own check.
    await mine.run("fsck", "--strict", "--no-dangling", "--no-progress");
  }, 120_000);

  it("writes a folder git wrote with a zero-padded mode again as fast-import does, and only what fast-import writes again", async () => {
    const blob = blobs[0] ?? "";
    const hex = (id: string) => Buffer.from(id, "hex");
    const ids: string[] = [];
    for (const r of [mine, theirs]) {
      const literal = async (content: Buffer) => (await r.git({ args: ["hash-object", "-t", "tree", "-w", "--literally", "--stdin"], cwd: r.dir, input: content })).stdout.toString().trim();
      const inner = (await r.git({ args: ["mktree"], cwd: r.dir, input: `100644 blob ${blob}\tf\n` })).stdout.toString().trim();
      // Trees git would not write: folder entries as `040000`, at the root and in `odd/`.
      const odd = await literal(Buffer.concat([Buffer.from("100644 file\0"), hex(blob), Buffer.from("040000 sub\0"), hex(inner)]));
      const root = await literal(Buffer.concat([Buffer.from("040000 kept\0"), hex(inner), Buffer.from("040000 odd\0"), hex(odd), Buffer.from("040000 touched\0"), hex(inner)]));
      ids.push((await r.git({ args: ["commit-tree", root, "-m", "odd"], cwd: r.dir })).stdout.toString().trim());
    }
    expect(ids[1]).toBe(ids[0]);
    const commit = (path: string, mode: string | null): ImportCommit => ({
      author: "A <a@x> 1 +0000",
      committer: "A <a@x> 1 +0000",
      encoding: null,
      message: "m\n",
      changes: [{ path, before: null, after: mode === null ? null : { mode, oid: blob } }],
    });
    // In order: a file set to what it is (nothing is written again), a path under a file (only
    // the folder above the file's is), a new file, another.
    const out = await both(ids[0] ?? "", [commit("kept/f", "100644"), commit("odd/file/x", null), commit("touched/g", "100755"), commit("README", "100644")]);
    expect(out.mine).not.toBeNull();
    expect(out.mine).toEqual(out.theirs);
  });

  it("leaves to fast-import what it would not take as it is", async () => {
    const from = await bothBase({ "a.txt": "a\n" });
    const objectsDir = (await looseObjectsDir(mine.git, mine.dir)) ?? "";
    const base: ImportCommit = { author: "A <a@x> 1 +0000", committer: "A <a@x> 1 +0000", encoding: null, message: "m\n", changes: [] };
    const set = (mode: string, oid: string, path = "b.txt"): PathChange => ({ path, before: null, after: { mode, oid } });
    const cases: ImportCommit[] = [
      { ...base, author: "<a@x> 1 +0000" },
      { ...base, committer: "A <a@x> 1 +1500" },
      { ...base, committer: "A <a@x> yesterday" },
      { ...base, changes: [set("100664", blobs[0] ?? "")] },
      { ...base, changes: [set("40000", blobs[0] ?? "")] },
      { ...base, changes: [set("100644", "f".repeat(40))] },
      { ...base, changes: [set("100644", blobs[0] ?? "", "a//b")] },
    ];
    for (const c of cases) expect(await writeChain({ git: mine.git, repoDir: mine.dir, objectsDir, from, commits: [c] }), JSON.stringify(c)).toBeNull();
    // A chain of a hundred new objects or more: fast-import keeps those in one pack, naruto would
    // write a file each. Here each commit adds two (itself and the root), and its folders the same
    // two trees as the others; fifty commits, counted before anything is read, are fast-import's.
    const long = (n: number) => Array.from({ length: n }, (_, i) => ({ ...base, changes: [set("100644", blobs[0] ?? "", `d${i}/e/f.txt`)] }));
    expect(await writeChain({ git: mine.git, repoDir: mine.dir, objectsDir, from, commits: long(40) })).toHaveLength(40);
    let asked = 0;
    const counting: typeof mine.git = (call) => (asked++, mine.git(call));
    expect(await writeChain({ git: counting, repoDir: mine.dir, objectsDir, from, commits: long(50) })).toBeNull();
    expect(asked).toBe(0);
    // A file name of its own in each: four new objects a commit (itself, the root, two folders), 96, then 100.
    const own = (n: number) => Array.from({ length: n }, (_, i) => ({ ...base, changes: [set("100644", blobs[0] ?? "", `d${i}/e/f${i}.txt`)] }));
    expect(await writeChain({ git: mine.git, repoDir: mine.dir, objectsDir, from, commits: own(24) })).toHaveLength(24);
    expect(await writeChain({ git: mine.git, repoDir: mine.dir, objectsDir, from, commits: own(25) })).toBeNull();
    // A base that is not a commit (a tree).
    const tree0 = await mine.run("rev-parse", `${from}^{tree}`);
    expect(await writeChain({ git: mine.git, repoDir: mine.dir, objectsDir, from: tree0, commits: [{ ...base, changes: [set("100644", blobs[0] ?? "")] }] })).toBeNull();
    // A tree holding a name twice.
    const blob = blobs[0] ?? "";
    const twice = Buffer.concat([Buffer.from("100644 x\0"), Buffer.from(blob, "hex"), Buffer.from("100644 x\0"), Buffer.from(blob, "hex")]);
    const tree = (await mine.git({ args: ["hash-object", "-t", "tree", "-w", "--literally", "--stdin"], cwd: mine.dir, input: twice })).stdout.toString().trim();
    const odd = (await mine.git({ args: ["commit-tree", tree, "-m", "odd"], cwd: mine.dir })).stdout.toString().trim();
    expect(await writeChain({ git: mine.git, repoDir: mine.dir, objectsDir, from: odd, commits: [{ ...base, changes: [set("100644", blob, "y")] }] })).toBeNull();
  });
});
