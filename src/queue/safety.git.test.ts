import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { readWholeTree, writeCheckpoints } from "../../test/support/checkpoint-builder.ts";
import { snapshotCheckout } from "../../test/support/checkout-snapshot.ts";
import type { Git } from "../git/index.ts";
import { mergeCheckpoint, supportsMergeBase } from "./merge.ts";
import { createQueueBranch, integrate } from "./queue.ts";
import type { VerifyCandidate } from "./verify.ts";

let repo: TestRepo;
afterEach(async () => repo?.remove());

async function setup(files: Record<string, string>) {
  repo = await createTestRepo(files);
  const base = await repo.run("rev-parse", "HEAD");
  const { ref } = await createQueueBranch({ git: repo.git, repoDir: repo.dir, mission: "m-safe", base });
  return { base, ref };
}

describe("the queue under concurrency", () => {
  it("loses no update when several integrators run on one queue at once", async () => {
    const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, `${i}\n`]));
    const { base, ref } = await setup(files);
    const checkpoints = await writeCheckpoints(
      repo.git,
      repo.dir,
      Array.from({ length: 12 }, (_, i) => ({ base, item: `i${i}`, files: { [`f${i}.txt`]: `changed ${i}\n` } })),
    );
    const batches = await Promise.all(
      [0, 1, 2, 3].map((b) => integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints: checkpoints.slice(b * 3, b * 3 + 3) })),
    );
    expect(batches.flatMap((b) => b.results.map((r) => r.status))).toEqual(Array(12).fill("integrated"));
    expect(await repo.run("rev-list", "--count", `${base}..${ref}`)).toBe("12");
    const tree = await readWholeTree(repo.git, repo.dir, ref);
    for (let i = 0; i < 12; i++) expect(tree.get(`f${i}.txt`)?.content.toString()).toBe(`changed ${i}\n`);
  });

  it("rebuilds from the new head when the queue moves between build and compare-and-swap", async () => {
    const { base, ref } = await setup({ "a.txt": "a\n", "b.txt": "b\n" });
    const [ours, theirs] = await writeCheckpoints(repo.git, repo.dir, [
      { base, item: "ours", files: { "a.txt": "ours\n" } },
      { base, item: "theirs", files: { "b.txt": "theirs\n" } },
    ]);
    let raced = false;
    const racing: Git = async (call) => {
      // The queue's compare-and-swap: a ref transaction (updateRefs) naming the queue.
      if (!raced && call.args.includes("update-ref") && String(call.input ?? "").includes(` ${ref} `)) {
        raced = true;
        await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints: [theirs!] });
      }
      return repo.git(call);
    };
    const batch = await integrate({ git: racing, repoDir: repo.dir, queueRef: ref, checkpoints: [ours!] });
    expect(batch.raceRetries).toBe(1);
    expect(batch.results[0]?.status).toBe("integrated");
    expect(await repo.run("show", `${ref}:a.txt`)).toBe("ours");
    expect(await repo.run("show", `${ref}:b.txt`)).toBe("theirs");
    expect(await repo.run("rev-list", "--count", `${base}..${ref}`)).toBe("2");
  });
});

describe("the user's checkout", () => {
  it("is byte-identical after a batch with fast path, merge, conflict and verification", async () => {
    const lines = (tag: string, at: number) => `${Array.from({ length: 20 }, (_, i) => (i === at ? tag : `l${i}`)).join("\n")}\n`;
    const { base, ref } = await setup({ "shared.txt": lines("", -1), "mine.txt": "mine\n", "other.txt": "o\n" });
    // A dirty checkout: a staged change, an unstaged change and an untracked file.
    await repo.write({ "mine.txt": "staged\n" });
    await repo.run("add", "mine.txt");
    await repo.write({ "other.txt": "unstaged\n", "untracked.txt": "u\n" });
    const before = await snapshotCheckout(repo.dir);
    const checkpoints = await writeCheckpoints(repo.git, repo.dir, [
      { base, item: "a", files: { "shared.txt": lines("a", 1), "new/a.txt": "a\n" } },
      { base, item: "b", files: { "shared.txt": lines("b", 18) } },
      { base, item: "c", files: { "shared.txt": lines("c", 1) } },
    ]);
    const verify: VerifyCandidate = async () => ({ exitCode: 0, output: "ok\n" });
    const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints, verify });
    expect(batch.results.map((r) => r.status)).toEqual(["integrated", "integrated", "conflicted"]);
    expect(await snapshotCheckout(repo.dir)).toEqual(before);
    expect(await repo.run("symbolic-ref", "HEAD")).toBe("refs/heads/main");
  });
});

describe("merge engine detection", () => {
  it("detects --merge-base by trying it, and agrees with the git version", async () => {
    await setup({ "a.txt": "a\n" });
    const [major = 0, minor = 0] = (await repo.run("version"))
      .replace(/^git version /, "")
      .split(".")
      .map(Number);
    expect(await supportsMergeBase(repo.git, repo.dir, await repo.run("rev-parse", "HEAD"))).toBe(major > 2 || (major === 2 && minor >= 40));
  });

  it("uses merge-tree only where it can name the checkpoint's base as the merge base", async () => {
    const { base } = await setup({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
    const [ours, other] = await writeCheckpoints(repo.git, repo.dir, [
      { base, files: { "a.txt": "ours\n" } },
      { base, files: { "b.txt": "other base\n" } },
    ]);
    const [theirs, offBase] = await writeCheckpoints(repo.git, repo.dir, [
      { base, files: { "c.txt": "theirs\n" } },
      { base: other!.commit, files: { "c.txt": "off base\n" } },
    ]);
    const explicit = await supportsMergeBase(repo.git, repo.dir, base);
    const common = { git: repo.git, repoDir: repo.dir, engine: "merge-tree" as const, ours: ours!.commit };
    expect(await mergeCheckpoint({ ...common, base, theirs: theirs!.commit })).toMatchObject({ clean: true, engine: "merge-tree" });
    // Here git's own merge base (base) is not the checkpoint's base (other): merge-tree needs --merge-base.
    const outcome = await mergeCheckpoint({ ...common, base: other!.commit, theirs: offBase!.commit });
    expect(outcome).toMatchObject({ clean: true, engine: explicit ? "merge-tree" : "apply-3way" });
    if (outcome.clean) {
      // Only the checkpoint's own change (c.txt) merges in; other's b.txt change is not dragged along.
      expect(await repo.run("show", `${outcome.tree}:b.txt`)).toBe("b");
      expect(await repo.run("show", `${outcome.tree}:c.txt`)).toBe("off base");
    }
  });
});

describe("the queue reads the objects it is given", () => {
  it("integrates a checkpoint's own change, not what a replace ref names in its place", async () => {
    // An unsandboxed agent can write refs/replace/<another item's checkpoint>: git would then
    // read that commit's change instead, which no gate checked for that item.
    const { base, ref } = await setup({ "a.txt": "a\n" });
    const [checked, other] = await writeCheckpoints(repo.git, repo.dir, [
      { base, item: "checked", files: { "checked.txt": "checked\n" } },
      { base, item: "other", files: { "unchecked.txt": "never checked\n" } },
    ]);
    await repo.run("replace", checked!.commit, other!.commit);
    const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints: [checked!] });
    expect(batch.results[0]?.status).toBe("integrated");
    const tree = await readWholeTree(repo.git, repo.dir, ref);
    expect([...tree.keys()].sort()).toEqual(["a.txt", "checked.txt"]);
  });
});
