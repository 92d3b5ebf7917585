/**
 * The merge queue on Actions, shared by the queue job (which builds and verifies, holding no write
 * token) and the publish job (which rebuilds the same commits, runs nothing of the repository,
 * and pushes): which checkpoints a run integrates, and the local build of the queue from them.
 * Both jobs call the same functions on the same inputs, so they write the same commits.
 */
import { integrateBatch, type Integrated, type IntegratorContext } from "../../engine/index.ts";
import { queueRefName, readRef } from "../../queue/index.ts";
import type { Git } from "../../git/index.ts";
import { workerBranch } from "../../gate/index.ts";
import type { Mission } from "../../mission/index.ts";
import { IllegalEventError } from "../../mission/index.ts";
import type { CheckpointOrder, MissionCommand, MissionEvent } from "../../mission/index.ts";
import { step } from "../../mission/index.ts";
import type { ActionLog } from "../log.ts";
import { fetchRefs, hasCommit, type Remote } from "../remote.ts";

/**
 * Checkpoints an earlier run recorded but did not get onto the queue (it stopped in between, or
 * lost a race with another run): they go first, so nothing recorded as finished is left behind.
 */
export function waitingCheckpoints(mission: Mission): CheckpointOrder[] {
  const out: CheckpointOrder[] = [];
  for (const item of mission.items) {
    const last = item.attempts.at(-1);
    if (last?.status === "integrating" && last.checkpoint && last.base) out.push({ item: item.id, attempt: last.n, commit: last.checkpoint, base: last.base });
  }
  return out;
}

/** The checkpoints `integrate` commands name, in order, each once. */
export function integrateOrders(first: readonly CheckpointOrder[], commands: readonly MissionCommand[]): CheckpointOrder[] {
  const seen = new Set<string>();
  const out: CheckpointOrder[] = [];
  for (const c of [...first, ...commands.flatMap((command) => (command.type === "integrate" ? command.checkpoints : []))]) {
    const key = `${c.item}#${c.attempt}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}

/**
 * What the queue job integrates: the waiting checkpoints, then those the run's events lead to,
 * computed with the engine's pure `step` (the queue job cannot write the mission). Publish
 * derives the same from the stored mission as it records the events.
 */
export function ordersAfter(mission: Mission, events: readonly MissionEvent[]): CheckpointOrder[] {
  let m = mission;
  const commands: MissionCommand[] = [];
  for (const event of events) {
    try {
      const result = step(m, event);
      m = result.mission;
      commands.push(...result.commands);
    } catch (error) {
      if (!(error instanceof IllegalEventError)) throw error;
    }
  }
  return integrateOrders(waitingCheckpoints(mission), commands);
}

/**
 * Fetches, with the job's token, the worker branches of the checkpoints whose commits this
 * checkout lacks (those an earlier run left waiting; this run's own arrive in bundles).
 */
export async function fetchMissingCheckpoints(input: {
  git: Git;
  repoDir: string;
  remote: Remote;
  log: ActionLog;
  mission: string;
  orders: readonly CheckpointOrder[];
}): Promise<void> {
  for (const c of input.orders) {
    if (await hasCommit(input.git, input.repoDir, c.commit)) continue;
    const branch = `refs/heads/${workerBranch(input.mission, c.item)}`;
    await fetchRefs(input.git, input.repoDir, input.remote, [`+${branch}:refs/naruto/pending/${input.mission}/${c.item}`]).catch((error: unknown) => {
      input.log.warning(`could not fetch ${branch}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}

/**
 * Splits the orders into those whose checkpoint is here and the `verify_failed` events of those
 * that are not: a checkpoint gone from GitHub cannot be integrated, so it fails with that reason
 * and is retried instead of waiting for ever.
 */
export async function readyOrders(
  ctx: { git: Git; repoDir: string; at: string },
  orders: readonly CheckpointOrder[],
): Promise<{ ready: CheckpointOrder[]; gone: MissionEvent[] }> {
  const ready: CheckpointOrder[] = [];
  const gone: MissionEvent[] = [];
  for (const c of orders) {
    if (await hasCommit(ctx.git, ctx.repoDir, c.commit)) {
      ready.push(c);
      continue;
    }
    const output = `the checkpoint ${c.commit.slice(0, 12)} of ${c.item}#${c.attempt} is no longer on GitHub (its worker branch moved or was deleted)`;
    gone.push({ type: "verify_failed", at: ctx.at, item: c.item, attempt: c.attempt, output });
  }
  return { ready, gone };
}

/**
 * Builds the queue for `ready` in batches of the mission's `batch`, in this checkout only (the
 * local `naruto/<mission>` ref moves; nothing is pushed): the same batches as on one machine
 * (fast path, three-way merge, verify, bisection). Returns each batch's `integrated` event and
 * the queue head at the end.
 */
export async function buildQueue(
  ctx: IntegratorContext & { log: ActionLog },
  mission: Mission,
  ready: readonly CheckpointOrder[],
): Promise<{ events: Integrated[]; head: string }> {
  const queueRef = queueRefName(mission.id);
  const events: Integrated[] = [];
  for (let i = 0; i < ready.length; i += mission.settings.batch) {
    const batch = ready.slice(i, i + mission.settings.batch);
    events.push(await ctx.log.group(`merge queue: ${batch.map((c) => `${c.item}#${c.attempt}`).join(", ")}`, () => integrateBatch(ctx, mission, batch)));
  }
  const head = await readRef(ctx.git, ctx.repoDir, queueRef);
  if (head === null) throw new Error(`${queueRef} is missing locally: it is fetched before integrating`);
  return { events, head };
}
