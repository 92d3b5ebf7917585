import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { readWholeTree, writeCheckpoints } from "../../test/support/checkpoint-builder.ts";
import { createQueueBranch, integrate } from "./queue.ts";
import type { VerifyCandidate } from "./verify.ts";

let repo: TestRepo;
afterEach(async () => repo?.remove());

/** A verify check that is red when the candidate holds a `fail-*` file; it records what it saw. */
function fakeVerify() {
  const seen: Array<{ commit: string; green: boolean }> = [];
  const verify: VerifyCandidate = async (commit) => {
    const failing = (await repo.run("ls-tree", "--name-only", commit)).split("\n").filter((f) => f.startsWith("fail-"));
    seen.push({ commit, green: failing.length === 0 });
    return { exitCode: failing.length === 0 ? 0 : 1, output: `checked ${commit}\nfailing: ${failing.join(" ")}\n` };
  };
  return { seen, verify };
}

async function batchOf(n: number, culprits: readonly number[]) {
  repo = await createTestRepo({ "README.md": "r\n" });
  const base = await repo.run("rev-parse", "HEAD");
  const { ref } = await createQueueBranch({ git: repo.git, repoDir: repo.dir, mission: "m-verify", base });
  const checkpoints = await writeCheckpoints(
    repo.git,
    repo.dir,
    Array.from({ length: n }, (_, i) => ({
      base,
      item: `i${i}`,
      files: { [`src/f${i}.txt`]: `${i}\n`, ...(culprits.includes(i) ? { [`fail-${i}`]: "breaks the build\n" } : {}) },
    })),
  );
  return { base, ref, checkpoints };
}

const bound = (n: number, k: number) => 2 * k * Math.ceil(Math.log2(n)) + 1;

describe("integrate with a verify command", () => {
  it.each([
    [1, [0]],
    [2, [0]],
    [2, [1]],
    [2, [0, 1]],
    [7, [3]],
    [7, [1, 5]],
    [16, [0]],
    [16, [15]],
    [16, [4, 5]],
    [16, [0, 11]],
  ])("isolates the culprits in a batch of %i with failing %j within the 2·k·log2 n bound", async (n, culprits) => {
    const { base, ref, checkpoints } = await batchOf(n, culprits);
    const { seen, verify } = fakeVerify();
    const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints, verify });

    expect(batch.results.flatMap((r, i) => (r.status === "verify_failed" ? [i] : []))).toEqual(culprits);
    expect(batch.results.filter((r) => r.status === "integrated")).toHaveLength(n - culprits.length);
    for (const r of batch.results) if (r.status === "verify_failed") expect(r.outputTail).toContain(`fail-${r.checkpoint.item.slice(1)}`);
    expect(batch.verifyRuns).toBe(seen.length);
    expect(batch.verifyRuns).toBeLessThanOrEqual(bound(n, culprits.length));
    // The queue moved only to a commit that verified green, holding every other change.
    if (n > culprits.length) expect(seen.filter((s) => s.green).map((s) => s.commit)).toContain(batch.newHead);
    else expect(batch.newHead).toBe(base);
    const tree = await readWholeTree(repo.git, repo.dir, await repo.run("rev-parse", ref));
    expect([...tree.keys()].filter((p) => p.startsWith("src/")).length).toBe(n - culprits.length);
    expect([...tree.keys()].some((p) => p.startsWith("fail-"))).toBe(false);
  });

  it("verifies a green batch once", async () => {
    const { ref, checkpoints } = await batchOf(16, []);
    const { verify } = fakeVerify();
    const batch = await integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints, verify });
    expect(batch.verifyRuns).toBe(1);
    expect(batch.results.every((r) => r.status === "integrated")).toBe(true);
  });
});

describe("a queue naruto did not write", () => {
  it("is never built on: found elsewhere before the batch, or moved during its verification", async () => {
    const { base, ref, checkpoints } = await batchOf(2, []);
    const other = await repo.commit("someone else's", { "x.txt": "x\n" });
    await repo.run("update-ref", ref, other);
    await expect(integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints, expectedHead: base })).rejects.toMatchObject({
      name: "QueueTamperedError",
      expected: base,
      found: other,
    });
    expect(await repo.run("rev-parse", ref)).toBe(other);

    await repo.run("update-ref", ref, base);
    const moving: VerifyCandidate = async () => {
      await repo.run("update-ref", ref, other);
      return { exitCode: 0, output: "" };
    };
    await expect(integrate({ git: repo.git, repoDir: repo.dir, queueRef: ref, checkpoints, verify: moving, expectedHead: base })).rejects.toMatchObject({
      name: "QueueTamperedError",
      found: other,
    });
    expect(await repo.run("rev-parse", ref)).toBe(other);
  });
});
