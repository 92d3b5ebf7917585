/**
 * The queue's cost over a growing queue (bench/engine.ts): 256 checkpoints on disjoint files of a
 * 500-file repository go onto one mission's queue through `integrateBatch`, 8 at a time, as the
 * local driver sends them; each batch is timed. A batch should cost the same on an empty queue
 * and on one that holds 248 items.
 */
import { performance } from "node:perf_hooks";
import { integrateBatch, type BatchContext } from "../src/engine/integrate-batch.ts";
import { createQueueBranch } from "../src/queue/queue.ts";
import { step } from "../src/mission/step.ts";
import type { Mission } from "../src/mission/document.ts";
import { writeCheckpoints, writeCommits } from "../test/support/checkpoint-builder.ts";
import { createTestRepo } from "../test/support/git-repo.ts";
import { item, planned, requested } from "../test/support/mission-builders.ts";

const FILES = 500;
const fileName = (i: number) => `src/module-${i % 20}/file-${i}.ts`;

export async function integrationOverGrowingQueue({ items, batch }: { items: number; batch: number }): Promise<{ firstMs: number; lastMs: number }> {
  const repo = await createTestRepo({ "README.md": "# bench\n" });
  try {
    const root = await repo.run("rev-parse", "HEAD");
    const files = Object.fromEntries(Array.from({ length: FILES }, (_, i) => [fileName(i), `// file ${i}\n`]));
    const [base = ""] = await writeCommits(repo.git, repo.dir, [{ base: root, files, message: "500 files\n" }]);
    const request = requested();
    if (request.type !== "requested") throw new Error("requested() made another event");
    const start = step(null, { ...request, base: { ref: "main", commit: base } });
    let mission: Mission = step(start.mission, planned(Array.from({ length: items }, (_, i) => item(`item-${i}`)))).mission;
    await createQueueBranch({ git: repo.git, repoDir: repo.dir, mission: mission.id, base });
    const checkpoints = await writeCheckpoints(
      repo.git,
      repo.dir,
      Array.from({ length: items }, (_, i) => ({
        base,
        item: `item-${i}`,
        files: { [fileName(i % FILES)]: `// file ${i}, changed\n` },
        message: `item ${i}\n\nNaruto-Mission: ${mission.id}\nNaruto-Item: item-${i}\nNaruto-Attempt: 1\n`,
      })),
    );
    // No verify command: only the queue's own git work is measured.
    const ctx: BatchContext = { git: repo.git, repoDir: repo.dir, verify: null, now: () => new Date() };
    const times: number[] = [];
    for (let i = 0; i < checkpoints.length; i += batch) {
      const orders = checkpoints.slice(i, i + batch);
      const t = performance.now();
      const event = await integrateBatch(ctx, mission, orders);
      times.push(performance.now() - t);
      if (event.results.some((r) => r.kind !== "integrated")) throw new Error("a checkpoint did not integrate");
      // The mission as the driver would have it: the queue head recorded after each batch.
      mission = { ...mission, queue: { ...mission.queue, head: event.queue_head } };
    }
    const perBatch = (part: number[]) => part.reduce((a, b) => a + b, 0) / part.length;
    const quarter = Math.max(1, Math.floor(times.length / 4));
    return { firstMs: perBatch(times.slice(0, quarter)), lastMs: perBatch(times.slice(-quarter)) };
  } finally {
    await repo.remove();
  }
}
