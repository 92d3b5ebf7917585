/**
 * Events about attempts and the queue: `attempt_started`, `agent_exited`, `attempt_finished`, `integrated`,
 * `verify_failed`. Each checks that the attempt it names is the one in flight; an event seen
 * before (a redelivery) changes nothing, an event for an attempt that never ran is illegal.
 */
import { attemptsUsed, type Attempt, type Mission, type MissionItem, type TamperFinding } from "./document.ts";
import { findItem, own } from "./draft.ts";
import { IllegalEventError } from "./errors.ts";
import type { AttemptOutcome, IntegrationResult, MissionEvent } from "./events.ts";
import { keptWorkClause, outcomeReason } from "./kept-work.ts";

type Of<T extends MissionEvent["type"]> = Extract<MissionEvent, { type: T }>;

/** The event was already applied: the step must change nothing. */
export const DUPLICATE = Symbol("duplicate");
export type Applied = typeof DUPLICATE | undefined;

export function applyAttemptDispatched(m: Mission, e: Of<"attempt_dispatched">): Applied {
  const { attempt } = locate(m, e.type, e.item, e.attempt);
  // Once started (or ended), the start's record is the better one; the same dispatch again is a redelivery.
  if (attempt.status !== "dispatched" || (attempt.runner === e.runner && attempt.base === e.base)) return DUPLICATE;
  Object.assign(attempt, { base: e.base, runner: e.runner });
}

export function applyAttemptStarted(m: Mission, e: Of<"attempt_started">): Applied {
  const { attempt } = locate(m, e.type, e.item, e.attempt);
  if (attempt.status !== "dispatched") return DUPLICATE;
  Object.assign(attempt, { status: "running", base: e.base ?? attempt.base, started_at: e.at, runner: e.runner ?? attempt.runner });
}

/** Frees the attempt's agent slot (scheduler.ts); the attempt runs on until `attempt_finished`. */
export function applyAgentExited(m: Mission, e: Of<"agent_exited">): Applied {
  const { attempt } = locate(m, e.type, e.item, e.attempt);
  // After its end, a cancel or a second delivery: nothing to free.
  if (attempt.status !== "running" || attempt.exited_at !== null) return DUPLICATE;
  attempt.exited_at = e.at;
}

export function applyAttemptFinished(m: Mission, e: Of<"attempt_finished">): Applied {
  const { item, attempt } = locate(m, e.type, e.item, e.attempt);
  if (attempt.status === "cancelled" && e.outcome.kind === "interrupted" && e.outcome.work) {
    // Cancelled while it ran: its worker stopped it and kept what it had done; the reason says where.
    const note = keptWorkClause(e.outcome.work);
    if ((attempt.reason ?? "").includes(note)) return DUPLICATE;
    attempt.reason = attempt.reason ? `${attempt.reason}; ${note}` : note;
    if (item.status === "cancelled") item.reason = item.reason ? `${item.reason}; ${note}` : note;
    return;
  }
  if (attempt.status !== "dispatched" && attempt.status !== "running") return DUPLICATE;
  if (e.agents_as_root === true) m.agents_as_root = true;
  if (attempt.status === "dispatched" && attempt.started_at === null && attempt.tampered === null && isNeverStarted(e.outcome)) {
    // The runner stopped before the attempt began: it never happened, and is not recorded.
    item.attempts.pop();
    Object.assign(item, { status: "ready", reason: null });
    return;
  }
  Object.assign(attempt, {
    finished_at: e.at,
    summary: e.summary ?? null,
    cost_usd: e.cost_usd ?? null,
    tokens_in: e.tokens_in ?? null,
    tokens_out: e.tokens_out ?? null,
    model: e.model ?? null,
    output_tail: e.output_tail ?? [],
  });
  const o = e.outcome;
  if (attempt.tampered !== null || o.kind === "tampered") {
    // Whatever the attempt left, it ran while something changed what it may not: none of it counts.
    const reason = [attempt.tampered, o.kind === "tampered" ? outcomeReason(o) : null].filter((r) => r !== null).join("; ");
    fail(item, attempt, "tampered", "tampered", reason);
    return;
  }
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
      fail(item, attempt, "out_of_scope", "out_of_scope", `changed paths it may not change: ${o.paths.join(", ")}`);
      return;
    case "failed":
      fail(item, attempt, "failed", "failed", outcomeReason(o));
      return;
    case "permanent":
      // A failure like any other (the item is `failed`), but no attempt is left: a retry would
      // only fail the same way and, before that, spend what an attempt costs.
      fail(item, attempt, "failed", "failed", outcomeReason(o));
      item.max_attempts = Math.min(item.max_attempts, attemptsUsed(item));
      return;
    case "timed_out":
      fail(item, attempt, "timed_out", "timed_out", outcomeReason(o));
      return;
    case "interrupted":
      // Not the agent's fault and not counted: the item simply starts again.
      Object.assign(attempt, { status: "interrupted", reason: outcomeReason(o) });
      Object.assign(item, { status: "ready", reason: null });
      return;
  }
}

/**
 * The reason of an `interrupted` outcome for an attempt the runner never started (it stopped
 * first): such an attempt is removed, not recorded (see {@link applyAttemptFinished}).
 */
export const NEVER_STARTED = "never started:";

/** The outcome is the one `resumption` gives an attempt its runner never started (it is removed, not recorded). */
export function isNeverStarted(outcome: AttemptOutcome): boolean {
  return outcome.kind === "interrupted" && outcome.reason.startsWith(NEVER_STARTED);
}

/**
 * The tamper record's findings: kept on the mission for the report and the arbiter; every
 * attempt they name that is still in flight will end `tampered`.
 */
export function applyTampered(m: Mission, e: Of<"tampered">): Applied {
  const known = new Set(m.tampering.map((f) => JSON.stringify([f.what, f.before, f.after])));
  const fresh = e.findings.filter((f) => !known.has(JSON.stringify([f.what, f.before, f.after])));
  if (fresh.length === 0) return DUPLICATE;
  m.tampering.push(...fresh);
  for (const key of new Set(fresh.flatMap((f) => f.attempts))) {
    const [itemId, n] = [key.slice(0, key.lastIndexOf("#")), Number(key.slice(key.lastIndexOf("#") + 1))];
    const shared = findItem(m, itemId);
    const found = shared?.attempts.find((a) => a.n === n);
    if (!shared || !found || (found.status !== "dispatched" && found.status !== "running")) continue;
    const attempt = own(m, shared).attempts.find((a) => a.n === n);
    if (attempt) attempt.tampered = tamperReason(m.tampering.filter((f) => f.attempts.includes(key)));
  }
}

/**
 * Why an attempt ended `tampered`: what changed while it ran (the mission's tamper record holds
 * each old value) and that naruto cannot tell which of the attempts running then did it.
 */
export function tamperReason(findings: readonly TamperFinding[]): string {
  const whats = findings.map((f) => (f.after === null ? `${f.what} (deleted)` : f.before === null ? `${f.what} (created)` : f.what));
  const shown = whats.length > 8 ? [...whats.slice(0, 8), `${whats.length - 8} more`] : whats;
  const others = new Set(findings.flatMap((f) => f.attempts));
  const who = others.size > 1 ? `naruto cannot tell which of the ${others.size} attempts running then did it` : "no other attempt ran then";
  const what = findings.every((f) => f.blame === "not_naruto")
    ? "something other than naruto moved naruto's own refs while it ran"
    : "things outside its work directory changed while it ran without the sandbox";
  return `${what}: ${shown.join(", ")}; ${who} (the old values are in the mission's tamper record)`;
}

export function applyIntegrated(m: Mission, e: Of<"integrated">): Applied {
  let changed = false;
  for (const r of e.results) if (applyResult(m, e.type, r, e.at) !== DUPLICATE) changed = true;
  const freshBase = e.base_check != null && JSON.stringify(m.queue.base_check) !== JSON.stringify(e.base_check);
  const freshHalt = e.halt != null && m.reason !== e.halt;
  if (!changed && !freshBase && !freshHalt && m.queue.head === e.queue_head) return DUPLICATE;
  const moved = m.queue.head !== e.queue_head;
  if (e.base_check != null) {
    if (freshBase && e.base_check.runs.includes(true) && e.base_check.runs.includes(false)) {
      m.queue.flips = [...m.queue.flips, { at: e.at, commit: e.base_check.commit, item: null, attempt: null, runs: e.base_check.runs }];
    }
    m.queue.base_check = e.base_check;
    // Until a batch moves the queue, what the tests do at its head is what they do on the base.
    if (!moved && m.queue.head === e.base_check.commit) m.queue.report = e.base_check.report;
  }
  m.queue.head = e.queue_head;
  m.queue.verify_runs += e.verify_runs;
  if (moved) {
    const report = e.report ?? null;
    m.queue.report = report;
    const items = e.results.flatMap((r) => (r.kind === "integrated" ? [r.item] : []));
    m.queue.batches = [
      ...m.queue.batches,
      { at: e.at, head: e.queue_head, items, tests: report && { tests: report.tests, failed: report.failed, skipped: report.skipped } },
    ];
  }
  if (e.test_findings && e.test_findings.length > 0) m.queue.test_findings = [...m.queue.test_findings, ...e.test_findings];
}

export function applyVerifyFailed(m: Mission, e: Of<"verify_failed">): Applied {
  return applyResult(m, e.type, { kind: "verify_failed", item: e.item, attempt: e.attempt, output: e.output }, e.at);
}

function applyResult(m: Mission, type: string, r: IntegrationResult, at: string): Applied {
  const { item, attempt } = locate(m, type, r.item, r.attempt);
  if (r.kind === "flaky" && m.queue.flips.some((f) => f.commit === r.candidate && f.item === r.item && f.attempt === r.attempt)) return DUPLICATE;
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
    case "flaky":
      // Blamed for nothing: the checkpoint waits for the next batch, which verifies it again.
      attempt.status = "checkpointed";
      item.status = "checkpointed";
      m.queue.flips = [...m.queue.flips, { at, commit: r.candidate, item: r.item, attempt: r.attempt, runs: r.runs }];
      return;
  }
}

function fail(item: MissionItem, attempt: Attempt, attemptStatus: Attempt["status"], itemStatus: MissionItem["status"], reason: string): void {
  Object.assign(attempt, { status: attemptStatus, reason });
  Object.assign(item, { status: itemStatus, reason });
}

/**
 * The item and attempt an event names, as the draft's own copies (they may be changed: an event
 * found to be a duplicate leaves the whole draft unused, so an unneeded copy costs nothing else).
 */
function locate(m: Mission, type: string, itemId: string, n: number): { item: MissionItem; attempt: Attempt } {
  const shared = findItem(m, itemId);
  if (!shared) throw new IllegalEventError(type, `mission ${m.id} has no item "${itemId}"`);
  const at = shared.attempts.findIndex((a) => a.n === n);
  const found = shared.attempts[at];
  if (!found) throw new IllegalEventError(type, `item "${itemId}" has no attempt ${n} (it has ${shared.attempts.length})`);
  if (at !== shared.attempts.length - 1 && (found.status === "dispatched" || found.status === "running")) {
    throw new IllegalEventError(type, `item "${itemId}" attempt ${n} is not the current attempt`);
  }
  const item = own(m, shared);
  const attempt = item.attempts[at];
  if (!attempt) throw new IllegalEventError(type, `item "${itemId}" has no attempt ${n}`);
  return { item, attempt };
}
