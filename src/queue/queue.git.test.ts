import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { readWholeTree, writeCheckpoints } from "../../test/support/checkpoint-builder.ts";
import { createQueueBranch, integrate } from "./queue.ts";
import type { MergeEngineChoice } from "./merge.ts";
import { createTreeCache } from "./read.ts";
import { CheckpointInputError, type CheckpointResult } from "./types.ts";

const lines = (n: number, change: Record<number, string> = {}) => `${Array.from({ length: n }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join("\n")}\n`;

let repo: TestRepo;
afterEach(async () => repo?.remove());

async function setup(files: Record<string, string | Buffer>) {
  repo = await createTestRepo(files);
  const base = await repo.run("rev-parse", "HEAD");
  const { ref } = await createQueueBranch({ git: repo.git, repoDir: repo.dir, mission: "m-test", base });
  return { base, ref };
}

const blobAt = (commit: string, path: string) => repo.run("rev-parse", `${commit}:${path}`);
const statuses = (results: readonly CheckpointResult[]) => results.map((r) => r.status);

describe.each<MergeEngineChoice>(["auto", "apply-3way", "merge-tree"])("integrate (merge engine %s)", (merge) => {
  it("reports the second of two same-line changes as conflicted and keeps the first byte for byte", async () => {
    const { base, ref } = await setup({ "f.txt": lines(10) });
    const [first, second] = await writeCheckpoints(repo.git, repo.dir, [
      { base, item: "a", files: { "f.txt": lines(10, { 5: "from a" }) } },
      { base, item: "b", files: { "f.txt": lines(10, { 5: "from b" }) } },
    ]);
    const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints: [first!, second!], merge });
    expect(statuses(batch.results)).toEqual(["integrated", "conflicted"]);
    expect(batch.results[1]).toMatchObject({ status: "conflicted", paths: ["f.txt"] });
    expect(await blobAt(batch.newHead, "f.txt")).toBe(await blobAt(first!.commit, "f.txt"));
    expect(await repo.run("rev-list", "--count", `${base}..${ref}`)).toBe("1");
  });

  it("merges two changes to different parts of one file (slow path) and keeps both", async () => {
    const { base, ref } = await setup({ "f.txt": lines(30) });
    const checkpoints = await writeCheckpoints(repo.git, repo.dir, [
      { base, item: "a", files: { "f.txt": lines(30, { 2: "from a" }) } },
      { base, item: "b", files: { "f.txt": lines(30, { 28: "from b" }) } },
    ]);
    const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints, merge });
    expect(batch.results.map((r) => r.status === "integrated" && r.merged)).toEqual([false, true]);
    expect(await repo.run("show", `${ref}:f.txt`)).toBe(lines(30, { 2: "from a", 28: "from b" }).trimEnd());
  });

  it("conflicts when one side deletes the file the other changes", async () => {
    const { base, ref } = await setup({ "f.txt": lines(10), "g.txt": "g\n" });
    const checkpoints = await writeCheckpoints(repo.git, repo.dir, [
      { base, item: "a", files: { "f.txt": null } },
      { base, item: "b", files: { "f.txt": lines(10, { 1: "b" }), "g.txt": "g by b\n" } },
    ]);
    const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints, merge });
    expect(statuses(batch.results)).toEqual(["integrated", "conflicted"]);
    expect((await readWholeTree(repo.git, repo.dir, batch.newHead)).has("f.txt")).toBe(false);
    expect(await repo.run("show", `${ref}:g.txt`)).toBe("g");
  });

  it("keeps a mode change made underneath while merging a content change", async () => {
    const { base, ref } = await setup({ "run.sh": lines(20) });
    const checkpoints = await writeCheckpoints(repo.git, repo.dir, [
      { base, item: "a", files: { "run.sh": { content: lines(20), mode: "100755" } } },
      { base, item: "b", files: { "run.sh": lines(20, { 20: "b" }) } },
    ]);
    const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints, merge });
    expect(statuses(batch.results)).toEqual(["integrated", "integrated"]);
    const tree = await readWholeTree(repo.git, repo.dir, batch.newHead);
    expect(tree.get("run.sh")?.mode).toBe("100755");
    expect(tree.get("run.sh")?.content.toString()).toBe(lines(20, { 20: "b" }));
  });

  it("does not turn a file added underneath into a directory", async () => {
    const { base, ref } = await setup({ "README.md": "r\n" });
    const checkpoints = await writeCheckpoints(repo.git, repo.dir, [
      { base, item: "a", files: { docs: "a file named docs\n" } },
      { base, item: "b", files: { "docs/guide.md": "guide\n" } },
    ]);
    const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints, merge });
    expect(statuses(batch.results)).toEqual(["integrated", "conflicted"]);
    expect(await repo.run("show", `${ref}:docs`)).toBe("a file named docs");
  });
});

describe("integrate", () => {
  it("gives each checkpoint one queue commit with its author, message and trailers", async () => {
    const { base, ref } = await setup({ "a.txt": "a\n", "b.txt": "b\n" });
    const message = Buffer.from("Validate input\n\nBody with ümlauts.\n\nNaruto-Mission: m-test\nNaruto-Item: a\nNaruto-Attempt: 2\nNaruto-Agent: claude\n");
    const checkpoints = await writeCheckpoints(repo.git, repo.dir, [
      { base, item: "a", attempt: 2, files: { "a.txt": "A\n" }, message, author: "Ada Lovelace <ada@example.test>" },
      { base, item: "b", files: { "b.txt": "B\n" }, message: "no trailing newline", author: "Grace Hopper <grace@example.test>" },
    ]);
    const batch = await integrate({
      git: repo.git,
      repoDir: repo.dir,
      queueRef: ref,
      checkpoints,
      committer: { name: "naruto", email: "naruto@example.test" },
      now: () => new Date("2026-02-03T04:05:06Z"),
    });
    const commits = (await repo.run("rev-list", "--reverse", `${base}..${ref}`)).split("\n");
    expect(commits).toEqual(batch.results.map((r) => (r.status === "integrated" ? r.commit : "")));
    for (const [i, commit] of commits.entries()) {
      const queued = await repo.git({ args: ["cat-file", "commit", commit], cwd: repo.dir });
      const original = await repo.git({ args: ["cat-file", "commit", checkpoints[i]!.commit], cwd: repo.dir });
      const [qHead, ...qBody] = queued.stdout.toString("latin1").split("\n\n");
      const [oHead, ...oBody] = original.stdout.toString("latin1").split("\n\n");
      expect(qBody.join("\n\n")).toBe(oBody.join("\n\n"));
      expect(qHead?.match(/^author .*$/m)?.[0]).toBe(oHead?.match(/^author .*$/m)?.[0]);
      expect(qHead).toMatch(/^committer naruto <naruto@example\.test> 1770091506 \+0000$/m);
      expect(qHead).toContain(`parent ${i === 0 ? base : commits[i - 1]}`);
    }
    expect(await repo.run("log", "-1", "--format=%(trailers:key=Naruto-Attempt,valueonly)", commits[0]!)).toMatch(/^2\s*$/);
  });

  it("applies deletes, renames, mode changes, symlinks, binary files and odd paths exactly", async () => {
    const binary = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13]);
    const { base, ref } = await setup({ "old name.txt": "moved\n", "gone.txt": "bye\n", "tool.sh": "#!/bin/sh\n", "img.bin": binary });
    const checkpoints = await writeCheckpoints(repo.git, repo.dir, [
      { base, item: "a", files: { "old name.txt": null, 'new\nname "q".txt': "moved\n" } },
      { base, item: "b", files: { "gone.txt": null, "tool.sh": { content: "#!/bin/sh\n", mode: "100755" } } },
      { base, item: "c", files: { "img.bin": Buffer.concat([binary, binary]), link: { content: "tool.sh", mode: "120000" } } },
      { base, item: "d", files: { "dir with space/ü.md": "ü\n", "-leading dash": "x\n" } },
    ]);
    const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints });
    expect(statuses(batch.results)).toEqual(["integrated", "integrated", "integrated", "integrated"]);
    expect(batch.results[0]).toMatchObject({ changed: ['new\nname "q".txt', "old name.txt"], merged: false });
    const tree = await readWholeTree(repo.git, repo.dir, batch.newHead);
    expect([...tree.keys()].sort()).toEqual(
      ["-leading dash", "README.md", "dir with space/ü.md", "img.bin", "link", 'new\nname "q".txt', "tool.sh"].filter((p) => p !== "README.md").sort(),
    );
    expect(tree.get("tool.sh")?.mode).toBe("100755");
    expect(tree.get("link")).toEqual({ mode: "120000", content: Buffer.from("tool.sh") });
    expect(tree.get("img.bin")?.content).toEqual(Buffer.concat([binary, binary]));
  });

  it("keeps path bytes that are not UTF-8 exactly", async () => {
    const { base, ref } = await setup({ "a.txt": "a\n" });
    const checkpoints = await writeCheckpoints(repo.git, repo.dir, [{ base, files: { "caf\u00e9 \u00ff.txt": "latin1 name\n" }, pathBytes: "latin1" }]);
    const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints });
    const listing = await repo.git({ args: ["ls-tree", "-z", "--name-only", batch.newHead], cwd: repo.dir });
    expect(listing.stdout.toString("latin1").split("\0")).toContain("caf\u00e9 \u00ff.txt");
    expect(batch.results[0]).toMatchObject({ status: "integrated", changed: ["caf\ufffd \ufffd.txt"] });
  });

  it("asks git as many times for 1 as for 20 disjoint checkpoints, and writes them with one fast-import", async () => {
    // Each in a folder of its own: one stream writes the whole chain.
    const files = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`d${i}/f.txt`, `${i}\n`]));
    const { base, ref } = await setup(files);
    const checkpoints = await writeCheckpoints(
      repo.git,
      repo.dir,
      Array.from({ length: 20 }, (_, i) => ({ base, item: `i${i}`, files: { [`d${i}/f.txt`]: `changed ${i}\n` } })),
    );
    const counted = async (n: number) => {
      const calls: string[] = [];
      const git: typeof repo.git = (call) => (calls.push(call.args.join(" ")), repo.git(call));
      await repo.run("update-ref", ref, base);
      await integrate({ git, repoDir: repo.dir, queueRef: ref, checkpoints: checkpoints.slice(0, n) });
      return calls;
    };
    // The repository's layout is asked once per process: not part of a batch.
    await counted(1);
    const one = await counted(1);
    expect((await counted(20)).length).toBe(one.length);
    // The checkpoints (2), the ref, the tree, the chain's one fast-import, the ref's
    // compare-and-swap; all but ls-tree, fast-import and the ref's read go to long-running processes.
    expect(one.length).toBeLessThanOrEqual(7);
    expect(one.filter((c) => c.includes("fast-import"))).toHaveLength(1);
  });

  it("builds the next batch on the head it wrote and the tree it kept, reading neither again", async () => {
    const { base, ref } = await setup({ "f.txt": lines(30), "g.txt": "g\n" });
    const checkpoints = await writeCheckpoints(repo.git, repo.dir, [
      { base, item: "a", files: { "f.txt": lines(30, { 2: "from a" }) } },
      // Changes f.txt underneath b's: the slow path, whose merged tree is kept too.
      { base, item: "b", files: { "f.txt": lines(30, { 28: "from b" }), "h.txt": "h\n" } },
      { base, item: "c", files: { "g.txt": null } },
    ]);
    const trees = createTreeCache();
    const calls: string[] = [];
    const git: typeof repo.git = (call) => (calls.push(call.args.join(" ")), repo.git(call));
    const first = await integrate({ git, repoDir: repo.dir, queueRef: ref, checkpoints: checkpoints.slice(0, 2), expectedHead: base, trees });
    // The ref is written (compare-and-swap), never read.
    expect(calls.filter((c) => c.includes(ref) && !c.startsWith("update-ref"))).toEqual([]);
    calls.length = 0;
    const second = await integrate({ git, repoDir: repo.dir, queueRef: ref, checkpoints: checkpoints.slice(2), expectedHead: first.newHead, trees });
    expect(calls.filter((c) => /rev-parse|ls-tree/.test(c))).toEqual([]);
    expect(statuses(second.results)).toEqual(["integrated"]);
    // The kept tree is the real one: the second batch's commit holds exactly what git says.
    const kept = [...(trees.get(second.newHead)?.entries() ?? [])].map(([path, e]) => `${e.mode} ${e.oid} ${path}`);
    const real = await repo.run("ls-tree", "-r", "--format=%(objectmode) %(objectname) %(path)", second.newHead);
    expect(kept.sort()).toEqual(real.split("\n").sort());
    expect(await repo.run("show", `${ref}:f.txt`)).toBe(lines(30, { 2: "from a", 28: "from b" }).trimEnd());
  });

  it("rejects a checkpoint whose parent is not its base, or that does not exist, and leaves the queue", async () => {
    const { base, ref } = await setup({ "a.txt": "a\n" });
    const [cp] = await writeCheckpoints(repo.git, repo.dir, [{ base, files: { "a.txt": "b\n" } }]);
    const other = await repo.commit("elsewhere", { "x.txt": "x\n" });
    await expect(integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints: [{ ...cp!, base: other }] })).rejects.toBeInstanceOf(
      CheckpointInputError,
    );
    const missing = { ...cp!, commit: "f".repeat(40) };
    await expect(integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints: [missing] })).rejects.toBeInstanceOf(CheckpointInputError);
    expect(await repo.run("rev-parse", ref)).toBe(base);
  });

  it("creates the queue branch once and leaves an existing one where it is", async () => {
    const { base, ref } = await setup({ "a.txt": "a\n" });
    const later = await repo.commit("later", { "a.txt": "later\n" });
    expect(ref).toBe("refs/heads/naruto/m-test");
    expect(await createQueueBranch({ git: repo.git, repoDir: repo.dir, mission: "m-test", base: later })).toEqual({ ref, head: base, created: false });
  });
});
