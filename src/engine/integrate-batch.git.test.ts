/**
 * integrateBatch reads the queue only after the head the mission recorded (O(batch), not O(queue)),
 * and still recognises a checkpoint that reached the queue before the runner could record it.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { Git } from "../git/index.ts";
import { createQueueBranch } from "../queue/index.ts";
import type { Mission } from "../mission/index.ts";
import { step } from "../mission/index.ts";
import { writeCheckpoints } from "../../test/support/checkpoint-builder.ts";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { item, planned, requested } from "../../test/support/mission-builders.ts";
import { integrateBatch, type BatchContext } from "./integrate-batch.ts";

const repos: TestRepo[] = [];
afterAll(async () => {
  await Promise.all(repos.map((r) => r.remove()));
});

/** A repository, a planned mission on its head, the queue branch, and one checkpoint per item. */
async function setup(items: number) {
  const repo = await createTestRepo({ "README.md": "# test\n" });
  repos.push(repo);
  const base = await repo.run("rev-parse", "HEAD");
  const request = requested();
  if (request.type !== "requested") throw new Error("requested() made another event");
  const started = step(null, { ...request, base: { ref: "main", commit: base } }).mission;
  const mission = step(started, planned(Array.from({ length: items }, (_, i) => item(`i${i}`)))).mission;
  await createQueueBranch({ git: repo.git, repoDir: repo.dir, mission: mission.id, base });
  const checkpoints = await writeCheckpoints(
    repo.git,
    repo.dir,
    Array.from({ length: items }, (_, i) => ({
      base,
      item: `i${i}`,
      files: { [`src/i${i}.ts`]: `export const i${i} = ${i};\n` },
      message: `i${i}\n\nNaruto-Mission: ${mission.id}\nNaruto-Item: i${i}\nNaruto-Attempt: 1\n`,
    })),
  );
  // Every `git log` range the integrator asks for.
  const ranges: string[] = [];
  const git: Git = (call) => {
    if (call.args.includes("log")) ranges.push(call.args.find((a) => a.includes("..")) ?? "");
    return repo.git(call);
  };
  const ctx: BatchContext = { git, repoDir: repo.dir, verify: null, now: () => new Date("2026-01-01T00:00:00Z") };
  return { repo, base, mission, checkpoints, ranges, ctx };
}

const recorded = (m: Mission, head: string): Mission => ({ ...m, queue: { ...m.queue, head } });

describe("integrateBatch on a growing queue", () => {
  it("reads only the commits after the queue head the mission recorded", async () => {
    const { repo, mission, checkpoints, ranges, ctx } = await setup(6);
    let m = mission;
    const heads = [mission.queue.head];
    for (let i = 0; i < 6; i += 2) {
      const event = await integrateBatch(ctx, m, checkpoints.slice(i, i + 2));
      expect(event.results.map((r) => r.kind)).toEqual(["integrated", "integrated"]);
      m = recorded(m, event.queue_head);
      heads.push(event.queue_head);
    }
    // Each walk started where the previous batch ended: it never went back over the queue.
    expect(ranges).toEqual(heads.slice(0, 3).map((h) => `${h}..refs/heads/naruto/m-test1`));
    expect(await repo.run("rev-list", "--count", `${mission.queue.head}..refs/heads/naruto/m-test1`)).toBe("6");
  });

  it("recognises checkpoints that reached the queue before the mission recorded it, and applies none twice", async () => {
    const { repo, mission, checkpoints, ctx } = await setup(4);
    const first = await integrateBatch(ctx, mission, checkpoints.slice(0, 2));
    const second = await integrateBatch(ctx, recorded(mission, first.queue_head), checkpoints.slice(2, 4));
    // The runner stopped before saving the second batch: the mission still has the first head.
    const again = await integrateBatch(ctx, recorded(mission, first.queue_head), checkpoints.slice(2, 4));
    expect(again.results).toEqual(second.results);
    expect(again.queue_head).toBe(second.queue_head);
    // ...and before saving either: the walk goes back to the base.
    const fromBase = await integrateBatch(ctx, mission, checkpoints);
    expect(fromBase.results.map((r) => (r.kind === "integrated" ? r.commit : r.kind))).toEqual(
      [...first.results, ...second.results].map((r) => (r.kind === "integrated" ? r.commit : r.kind)),
    );
    expect(await repo.run("rev-list", "--count", `${mission.queue.head}..refs/heads/naruto/m-test1`)).toBe("4");
  });

  it("walks from the base when git does not know the recorded head", async () => {
    const { repo, mission, checkpoints, ranges, ctx } = await setup(2);
    const first = await integrateBatch(ctx, mission, checkpoints);
    const again = await integrateBatch(ctx, recorded(mission, "0123456789".repeat(4)), checkpoints);
    expect(again.results).toEqual(first.results);
    expect(ranges.at(-1)).toBe(`${mission.base.commit}..refs/heads/naruto/m-test1`);
    expect(await repo.run("rev-list", "--count", `${mission.base.commit}..refs/heads/naruto/m-test1`)).toBe("2");
  });
});
