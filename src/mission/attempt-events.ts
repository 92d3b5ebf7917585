/**
 * Events about attempts and the queue: `attempt_started`, `attempt_finished`, `integrated`,
 * `verify_failed`. Each checks that the attempt it names is the one in flight; an event seen
 * before (a redelivery) changes nothing, an event for an attempt that never ran is illegal.
 */
import type { Attempt, Mission, MissionItem } from "./document.ts";
import { IllegalEventError } from "./errors.ts";
import type { IntegrationResult, MissionEvent } from "./events.ts";

type Of<T extends MissionEvent["type"]> = Extract<MissionEvent, { type: T }>;

/** The event was already applied: the step must change nothing. */
export const DUPLICATE = Symbol("duplicate");
export type Applied = typeof DUPLICATE | void;

export function applyAttemptStarted(m: Mission, e: Of<"attempt_started">): Applied {
  const { attempt } = locate(m, e.type, e.item, e.attempt);
  if (attempt.status !== "dispatched") return DUPLICATE;
  Object.assign(attempt, { status: "running", base: e.base, started_at: e.at, runner: e.runner });
}

export function applyAttemptFinished(m: Mission, e: Of<"attempt_finished">): Applied {
  const { item, attempt } = locate(m, e.type, e.item, e.attempt);
  if (attempt.status !== "dispatched" && attempt.status !== "running") return DUPLICATE;
  Object.assign(attempt, {
    finished_at: e.at,
    summary: e.summary ?? null,
    cost_usd: e.cost_usd ?? null,
    tokens_in: e.tokens_in ?? null,
    tokens_out: e.tokens_out ?? null,
    model: e.model ?? null,
  });
  const o = e.outcome;
  switch (o.kind) {
    case "checkpointed":
      Object.assign(attempt, { status: "checkpointed", checkpoint: o.commit, base: o.base, changed: o.changed });
      Object.assign(item, { status: "checkpointed", reason: null });
      return;
    case "no_changes":
      if (item.readonly) {
        // A read-only item is done when it changed nothing: there is nothing to integrate.
        attempt.status = "no_changes";
        Object.assign(item, { status: "integrated", reason: null, commit: null, changed: [] });
        return;
      }
      fail(item, attempt, "no_changes", "failed", "no changes: the agent exited without changing any file");
      return;
    case "out_of_scope":
      fail(item, attempt, "out_of_scope", "out_of_scope", `changed paths outside its writes: ${o.paths.join(", ")}`);
      return;
    case "failed":
      fail(item, attempt, "failed", "failed", o.reason);
      return;
    case "timed_out":
      fail(item, attempt, "timed_out", "timed_out", o.reason);
      return;
    case "interrupted":
      // Not the agent's fault and not counted: the item simply starts again.
      Object.assign(attempt, { status: "interrupted", reason: o.reason });
      Object.assign(item, { status: "ready", reason: null });
      return;
  }
}

export function applyIntegrated(m: Mission, e: Of<"integrated">): Applied {
  let changed = false;
  for (const r of e.results) if (applyResult(m, e.type, r) !== DUPLICATE) changed = true;
  if (!changed && m.queue.head === e.queue_head) return DUPLICATE;
  m.queue.head = e.queue_head;
  m.queue.verify_runs += e.verify_runs;
}

export function applyVerifyFailed(m: Mission, e: Of<"verify_failed">): Applied {
  return applyResult(m, e.type, { kind: "verify_failed", item: e.item, attempt: e.attempt, output: e.output });
}

function applyResult(m: Mission, type: string, r: IntegrationResult): Applied {
  const { item, attempt } = locate(m, type, r.item, r.attempt);
  if (attempt.status !== "checkpointed" && attempt.status !== "integrating") {
    if (r.kind === "integrated" && attempt.status === "integrated" && item.commit === r.commit) return DUPLICATE;
    if (r.kind !== "integrated" && attempt.status === r.kind) return DUPLICATE;
    throw new IllegalEventError(type, `item "${r.item}" attempt ${r.attempt} has no checkpoint waiting for the queue (it is ${attempt.status})`);
  }
  switch (r.kind) {
    case "integrated":
      attempt.status = "integrated";
      Object.assign(item, { status: "integrated", reason: null, commit: r.commit, changed: r.changed });
      return;
    case "conflicted":
      fail(item, attempt, "conflicted", "conflicted", `conflict with the queue on ${r.paths.join(", ")}`);
      return;
    case "verify_failed":
      fail(item, attempt, "verify_failed", "failed", `queue verification failed:\n${r.output}`);
      return;
  }
}

function fail(item: MissionItem, attempt: Attempt, attemptStatus: Attempt["status"], itemStatus: MissionItem["status"], reason: string): void {
  Object.assign(attempt, { status: attemptStatus, reason });
  Object.assign(item, { status: itemStatus, reason });
}

function locate(m: Mission, type: string, itemId: string, n: number): { item: MissionItem; attempt: Attempt } {
  const item = m.items.find((i) => i.id === itemId);
  if (!item) throw new IllegalEventError(type, `mission ${m.id} has no item "${itemId}"`);
  const attempt = item.attempts.find((a) => a.n === n);
  if (!attempt) throw new IllegalEventError(type, `item "${itemId}" has no attempt ${n} (it has ${item.attempts.length})`);
  if (attempt !== item.attempts.at(-1) && (attempt.status === "dispatched" || attempt.status === "running")) {
    throw new IllegalEventError(type, `item "${itemId}" attempt ${n} is not the current attempt`);
  }
  return { item, attempt };
}
