/**
 * After every event: apply the scheduling policy to the mission and say what to do next. This
 * is where items start, dependents of failures are skipped, checkpoints go to the queue, caps
 * stop the mission, and a finished mission goes to review.
 */
import { attemptsLeft, type Mission, type MissionItem } from "./document.ts";
import { findItem, own, planGraph } from "./draft.ts";
import type { AttemptOrder, CheckpointOrder, MissionCommand } from "./events.ts";
import { nextToStart } from "./scheduler.ts";
import { formatUsd } from "./usd.ts";
import { isFinal } from "./status.ts";

/** Advances a `running` mission in place and appends the commands it needs. */
export function advance(m: Mission, at: string, commands: MissionCommand[]): void {
  if (m.status !== "running") return;
  const capped = costCapReached(m);
  if (capped !== null) stopForCap(m, capped, at, commands);

  const graph = planGraph(m);
  const decision = nextToStart(
    {
      items: m.items.map((i, k) => ({
        id: i.id,
        deps: graph.deps[k] ?? [],
        rank: i.rank,
        status: i.status,
        attemptsLeft: attemptsLeft(i),
        agentExited: i.status === "running" && (i.attempts.at(-1)?.exited_at ?? null) !== null,
      })),
      graph: graph.indexed,
    },
    { maxParallel: m.settings.max_parallel },
  );
  for (const s of decision.skip) {
    const item = findItem(m, s.id);
    if (item) Object.assign(own(m, item), { status: "skipped", reason: s.reason });
  }
  const orders: AttemptOrder[] = [];
  for (const id of decision.start) {
    const item = findItem(m, id);
    if (item) orders.push(startAttempt(own(m, item), at));
  }
  for (const id of decision.ready) {
    const item = findItem(m, id);
    if (item && item.status === "pending") own(m, item).status = "ready";
  }
  if (orders.length > 0) commands.push({ type: "start_attempts", attempts: orders });

  const checkpoints: CheckpointOrder[] = [];
  for (const shared of m.items) {
    const waiting = shared.attempts.at(-1);
    if (shared.status === "checkpointed" && waiting?.status === "checkpointed" && waiting.checkpoint && waiting.base) {
      const last = own(m, shared).attempts.at(-1);
      if (last) last.status = "integrating";
      checkpoints.push({ item: shared.id, attempt: waiting.n, commit: waiting.checkpoint, base: waiting.base });
    }
  }
  if (checkpoints.length > 0) commands.push({ type: "integrate", checkpoints });

  if (m.items.every((i) => isFinal(i.status, attemptsLeft(i)))) {
    m.status = "reviewing";
    commands.push({ type: "review" });
  }
}

/** Declared and added dependencies: the scheduler orders by both. */
export function depsOf(item: MissionItem): string[] {
  return [...item.after, ...item.added_after];
}

function startAttempt(item: MissionItem, at: string): AttemptOrder {
  const previous = item.attempts.at(-1);
  const n = item.attempts.length + 1;
  item.attempts.push({
    n,
    status: "dispatched",
    base: null,
    checkpoint: null,
    changed: [],
    reason: null,
    summary: null,
    cost_usd: null,
    tokens_in: null,
    tokens_out: null,
    model: null,
    runner: null,
    dispatched_at: at,
    started_at: null,
    finished_at: null,
    tampered: null,
    exited_at: null,
    output_tail: [],
  });
  item.status = "running";
  item.reason = null;
  const previousFailure = previous?.reason && previous.status !== "interrupted" ? `attempt ${previous.n}: ${previous.reason}` : null;
  return { item: item.id, attempt: n, previousFailure };
}

/** Total reported agent cost of the mission, in USD. */
export function totalCost(m: Mission): number {
  let sum = 0;
  for (const item of m.items) for (const a of item.attempts) sum += a.cost_usd ?? 0;
  return sum;
}

function costCapReached(m: Mission): string | null {
  const cap = m.settings.max_cost_usd;
  if (cap === null) return null;
  const spent = totalCost(m);
  return spent >= cap ? `cost cap reached: ${formatUsd(spent)} spent of ${formatUsd(cap)}` : null;
}

/**
 * A cap stops, it does not warn: nothing new starts, running attempts are cancelled, and what is
 * already integrated stays on the queue for review.
 */
function stopForCap(m: Mission, reason: string, at: string, commands: MissionCommand[]): void {
  const cancel = cancelOpenItems(m, reason, at);
  if (cancel.length > 0) commands.push({ type: "cancel_attempts", attempts: cancel });
  m.reason = reason;
}

/**
 * The queue cannot go on (its base is red, its verify flips too often): nothing more is
 * integrated. Running attempts are cancelled, and so are checkpoints waiting for the queue (their
 * work stays on their worker branches); the mission fails with the reason.
 */
export function haltIntegration(m: Mission, reason: string, at: string, commands: MissionCommand[]): void {
  const cancel = cancelOpenItems(m, `not integrated: ${reason}`, at, { checkpoints: true });
  if (cancel.length > 0) commands.push({ type: "cancel_attempts", attempts: cancel });
  Object.assign(m, { status: "failed", reason });
  commands.push({ type: "report" }, { type: "finish", status: "failed" });
}

/**
 * Cancels every item that is not final (failures that could still be retried included) and
 * returns the attempts a driver must stop. Checkpointed items are left to integrate.
 */
export function cancelOpenItems(m: Mission, reason: string, at: string, options: { readonly checkpoints?: boolean } = {}): { item: string; attempt: number }[] {
  const running: { item: string; attempt: number }[] = [];
  for (const shared of m.items) {
    // A checkpoint on its way to the queue is finished work: it still integrates (unless the queue stops).
    if (isFinal(shared.status, attemptsLeft(shared)) || (shared.status === "checkpointed" && !options.checkpoints)) continue;
    const item = own(m, shared);
    const last = item.attempts.at(-1);
    if (last && (last.status === "dispatched" || last.status === "running")) {
      running.push({ item: item.id, attempt: last.n });
      Object.assign(last, { status: "cancelled", reason, finished_at: at });
    } else if (last && (last.status === "checkpointed" || last.status === "integrating")) {
      Object.assign(last, { status: "cancelled", reason });
    }
    Object.assign(item, { status: "cancelled", reason });
  }
  return running;
}
