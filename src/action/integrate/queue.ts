/**
 * The merge queue in the integrate job: the same batches as on one machine (`integrateBatch`:
 * fast path, three-way merge, verify, bisection; a checkpoint already on the queue is
 * recognised by its trailers), then the queue branch is pushed to GitHub as a compare-and-swap
 * of a fast-forward before the `integrated` event is recorded — the state never names a queue
 * head that GitHub does not have.
 */
import type { EngineContext } from "../../engine/context.ts";
import { queueRefName, readRef } from "../../git/queue-ref.ts";
import { workerBranch } from "../../git/worker-branch.ts";
import type { IntegrateCheckpoints } from "../../github-driver/carry-out.ts";
import { integrateBatch } from "../../engine/integrate-batch.ts";
import type { CheckpointOrder, MissionEvent } from "../../mission/events.ts";
import type { ActionLog } from "../log.ts";
import { fetchRefs, hasCommit, pushRef, type Remote } from "../remote.ts";

export interface QueueContext extends EngineContext {
  readonly remote: Remote;
  readonly log: ActionLog;
}

export function queueIntegrator(ctx: QueueContext): IntegrateCheckpoints {
  return async (mission, checkpoints) => {
    const events: MissionEvent[] = [];
    const ready = await withCommits(ctx, mission.id, checkpoints, events);
    const queueRef = queueRefName(mission.id);
    for (let i = 0; i < ready.length; i += mission.settings.batch) {
      const batch = ready.slice(i, i + mission.settings.batch);
      const before = await readRef(ctx.git, ctx.repoDir, queueRef);
      if (before === null) throw new Error(`${queueRef} is missing locally: it is fetched before integrating`);
      const integrated = await ctx.log.group(`merge queue: ${batch.map((c) => `${c.item}#${c.attempt}`).join(", ")}`, () =>
        integrateBatch({ ...ctx, verify: ctx.config.queue.verify }, mission, batch),
      );
      if (integrated.queue_head !== before) {
        await pushRef(ctx.git, ctx.repoDir, ctx.remote, { commit: integrated.queue_head, ref: queueRef, expected: before });
        ctx.log.info(`pushed ${mission.queue.branch}: ${before.slice(0, 12)} → ${integrated.queue_head.slice(0, 12)}`);
      }
      events.push(integrated);
    }
    return events;
  };
}

/**
 * Checkpoints from this run are local (fetched from their bundles); those an earlier run left
 * waiting are fetched from their worker branches. One whose commit is gone from GitHub cannot be
 * integrated: it fails with that reason and is retried, instead of waiting for ever.
 */
async function withCommits(ctx: QueueContext, mission: string, checkpoints: readonly CheckpointOrder[], events: MissionEvent[]): Promise<CheckpointOrder[]> {
  const missing: CheckpointOrder[] = [];
  for (const c of checkpoints) if (!(await hasCommit(ctx.git, ctx.repoDir, c.commit))) missing.push(c);
  for (const c of missing) {
    const branch = `refs/heads/${workerBranch(mission, c.item)}`;
    await fetchRefs(ctx.git, ctx.repoDir, ctx.remote, [`+${branch}:refs/naruto/pending/${mission}/${c.item}`]).catch((error: unknown) => {
      ctx.log.warning(`could not fetch ${branch}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  const ready: CheckpointOrder[] = [];
  for (const c of checkpoints) {
    if (await hasCommit(ctx.git, ctx.repoDir, c.commit)) {
      ready.push(c);
      continue;
    }
    const output = `the checkpoint ${c.commit.slice(0, 12)} of ${c.item}#${c.attempt} is no longer on GitHub (its worker branch moved or was deleted)`;
    events.push({ type: "verify_failed", at: ctx.now().toISOString(), item: c.item, attempt: c.attempt, output });
  }
  return ready;
}
