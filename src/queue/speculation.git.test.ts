/**
 * A pipelined queue (issue 37): a batch built and verified on the candidate of the batch before
 * it, while that one still verifies. It lands on top when the first lands whole, and is dropped
 * (nothing of it lands) when the first does not.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { writeCheckpoints } from "../../test/support/checkpoint-builder.ts";
import { createQueueBranch, integrate } from "./queue.ts";
import { SpeculationDroppedError } from "./types.ts";
import type { VerifyCandidate } from "./verify.ts";

let repo: TestRepo;
afterEach(async () => repo?.remove());

async function setup(culprit: boolean) {
  repo = await createTestRepo({ "README.md": "r\n" });
  const base = await repo.run("rev-parse", "HEAD");
  const { ref } = await createQueueBranch({ git: repo.git, repoDir: repo.dir, mission: "m-spec", base });
  const [a1, a2, b1, b2] = await writeCheckpoints(
    repo.git,
    repo.dir,
    ["a1", "a2", "b1", "b2"].map((item) => ({
      base,
      item,
      files: { [`src/${item}.txt`]: `${item}\n`, ...(culprit && item === "a2" ? { "fail-a2": "x\n" } : {}) },
    })),
  );
  if (!a1 || !a2 || !b1 || !b2) throw new Error("checkpoints");
  // The first batch's verify waits until the second one's has started: they overlap for certain.
  let secondStarted: () => void = () => undefined;
  const second = new Promise<void>((resolve) => (secondStarted = resolve));
  const verify =
    (role: "first" | "second"): VerifyCandidate =>
    async (commit) => {
      if (role === "first") await second;
      else secondStarted();
      const failing = (await repo.run("ls-tree", "--name-only", commit)).split("\n").some((f) => f.startsWith("fail-"));
      return { exitCode: failing ? 1 : 0, output: "" };
    };
  return { base, ref, first: [a1, a2], next: [b1, b2], verify };
}

/**
 * The first batch integrating, and the next one built on the first's candidate as soon as it is
 * told: speculatively, while the first still verifies.
 */
async function pipeline({ base, ref, first, next, verify }: Awaited<ReturnType<typeof setup>>) {
  let told: (commit: string) => void = () => undefined;
  const known = new Promise<string>((resolve) => (told = resolve));
  const a = integrate({
    git: repo.git,
    repoDir: repo.dir,
    queueRef: ref,
    checkpoints: first,
    verify: verify("first"),
    expectedHead: base,
    onCandidate: (c) => told(c.commit),
  });
  const candidate = await known;
  const b = integrate({
    git: repo.git,
    repoDir: repo.dir,
    queueRef: ref,
    checkpoints: next,
    verify: verify("second"),
    speculative: { onto: candidate, landed: a.then((r) => r.newHead) },
  });
  return { candidate, a, b };
}

describe("a speculative batch", () => {
  it("is verified while the batch before it verifies, and lands on top of it", async () => {
    const s = await setup(false);
    const { candidate, a, b } = await pipeline(s);
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.newHead).toBe(candidate);
    expect(rb.oldHead).toBe(candidate);
    expect(await repo.run("rev-parse", s.ref)).toBe(rb.newHead);
    expect((await repo.run("log", "--format=%s", `${s.base}..${s.ref}`)).split("\n").reverse()).toEqual(
      ["a1", "a2", "b1", "b2"].map((i) => expect.stringContaining(i)),
    );
  });

  it("is dropped when the batch before it does not land whole, and nothing of it lands", async () => {
    const s = await setup(true);
    const { a, b } = await pipeline(s);
    await expect(b).rejects.toBeInstanceOf(SpeculationDroppedError);
    const ra = await a;
    expect(ra.results.map((r) => r.status)).toEqual(["integrated", "verify_failed"]);
    expect(await repo.run("rev-parse", s.ref)).toBe(ra.newHead);
  });
});
