/**
 * The mission engine: `step(mission, event) → { mission, commands }` (docs/architecture.md). Pure: the
 * same mission and event always give the same result, and nothing outside is touched. Drivers
 * (local, GitHub) store the new mission with a compare-and-swap, then carry out the commands.
 */
import { advance, cancelOpenItems, haltIntegration } from "./advance.ts";
import {
  applyAgentExited,
  applyAttemptDispatched,
  applyAttemptFinished,
  applyAttemptStarted,
  applyIntegrated,
  applyTampered,
  applyVerifyFailed,
  DUPLICATE,
  type Applied,
} from "./attempt-events.ts";
import { applyBaseMoved, applyRefreshRequested, applyRefreshed } from "./refresh-event.ts";
import { attemptsLeft, attemptsUsed, MISSION_SCHEMA, missionSchema, type Attempt, type Mission, type MissionItem } from "./document.ts";
import { adopt, beginDraft, endDraft, findItem, own } from "./draft.ts";
import { IllegalEventError } from "./errors.ts";
import type { MissionCommand, MissionEvent } from "./events.ts";
import { isFailure, isMissionTerminal } from "./status.ts";

export interface StepResult {
  readonly mission: Mission;
  readonly commands: readonly MissionCommand[];
  /** The event had been applied before (a redelivery): the mission is unchanged. */
  readonly duplicate: boolean;
}

type Of<T extends MissionEvent["type"]> = Extract<MissionEvent, { type: T }>;

/**
 * Applies one event.
 *
 * @throws {IllegalEventError} when the event cannot apply (an attempt that never ran, approval of
 *   a running mission, …); the given mission is never modified.
 */
export function step(mission: Mission | null, event: MissionEvent): StepResult {
  if (event.type === "requested") return request(mission, event);
  if (mission === null) throw new IllegalEventError(event.type, "there is no mission yet: the first event must be `requested`");
  // Copy-on-write (draft.ts): only what the event changes is copied; the rest is shared.
  const m = beginDraft(mission);
  try {
    const commands: MissionCommand[] = [];
    const applied = apply(m, event, commands);
    if (applied === DUPLICATE) return { mission, commands: [], duplicate: true };
    advance(m, event.at, commands);
    m.seq += 1;
    m.updated_at = event.at;
    return { mission: m, commands, duplicate: false };
  } finally {
    endDraft(m);
  }
}

function apply(m: Mission, e: MissionEvent, commands: MissionCommand[]): Applied {
  switch (e.type) {
    case "requested":
      throw new IllegalEventError(e.type, `mission ${m.id} exists already`);
    case "planned":
      return planned(m, e, commands);
    case "planning_failed":
      expectStatus(m, e.type, ["planning"]);
      Object.assign(m, { status: "failed", reason: `planning failed: ${e.reason}` });
      commands.push({ type: "report" }, { type: "finish", status: "failed" });
      return;
    case "approved":
      if (m.status === "running" || m.status === "reviewing" || m.status === "done") return DUPLICATE;
      expectStatus(m, e.type, ["awaiting_approval"]);
      m.status = "running";
      return;
    case "attempt_dispatched":
      return applyAttemptDispatched(m, e);
    case "attempt_started":
      return applyAttemptStarted(m, e);
    case "agent_exited":
      return applyAgentExited(m, e);
    case "attempt_finished":
      return applyAttemptFinished(m, e);
    case "integrated": {
      const applied = applyIntegrated(m, e);
      if (applied !== DUPLICATE && e.halt != null && m.status === "running") haltIntegration(m, e.halt, e.at, commands);
      return applied;
    }
    case "verify_failed":
      return applyVerifyFailed(m, e);
    case "refreshed":
      return applyRefreshed(m, e);
    case "reviewed":
      if (m.status === "done" && m.verdict?.verdict === e.verdict) return DUPLICATE;
      expectStatus(m, e.type, ["reviewing"]);
      Object.assign(m, { status: "done", verdict: { verdict: e.verdict, summary: e.summary, findings: e.findings } });
      commands.push({ type: "report" }, { type: "finish", status: "done" });
      return;
    case "tick":
      return tick(m, e, commands);
    case "tampered":
      return applyTampered(m, e);
    case "cancelled":
      return cancel(m, e, commands);
    case "retry_requested":
      return retry(m, e);
    case "stopped":
      return stop(m, e, commands);
    case "refresh_requested":
      return applyRefreshRequested(m, e);
    case "base_moved":
      return applyBaseMoved(m, e);
  }
}

function request(mission: Mission | null, e: Of<"requested">): StepResult {
  if (mission !== null) {
    if (mission.id === e.id) return { mission, commands: [], duplicate: true };
    throw new IllegalEventError(e.type, `mission ${mission.id} exists already`);
  }
  // A review-only mission has nothing to plan: it starts in review, its queue head the reviewed commit.
  const review = e.review ?? null;
  if (review !== null && e.plan_text) throw new IllegalEventError(e.type, "a review-only mission takes no plan");
  const candidate = {
    schema: MISSION_SCHEMA,
    id: e.id,
    kind: review === null ? "run" : "review",
    status: review === null ? "planning" : "reviewing",
    reason: null,
    task: e.task,
    source: e.source,
    base: e.base,
    queue: { branch: e.queue_branch, head: review?.head ?? e.base.commit, verify_runs: 0 },
    settings: e.settings,
    plan_title: null,
    plan_text: e.plan_text ?? null,
    plan_source: e.plan_source ?? null,
    quoted: e.quoted ?? [],
    config_commit: e.config_commit ?? null,
    pull_request: e.pull_request ?? null,
    proof: null,
    items: [],
    verdict: null,
    tampering: [],
    sandbox: e.sandbox ?? null,
    agents_as_root: e.agents_as_root ?? false,
    created_at: e.at,
    updated_at: e.at,
    seq: 1,
  };
  const parsed = missionSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new IllegalEventError(e.type, `${issue?.path.join(".") ?? "event"}: ${issue?.message ?? "invalid"}`);
  }
  return { mission: parsed.data, commands: [{ type: review === null ? "plan" : "review" }], duplicate: false };
}

function planned(m: Mission, e: Of<"planned">, commands: MissionCommand[]): Applied {
  if (m.status !== "planning" && m.plan_title === e.title && m.items.length === e.items.length) return DUPLICATE;
  expectStatus(m, e.type, ["planning"]);
  if (e.items.length === 0) throw new IllegalEventError(e.type, "the plan has no items");
  m.plan_title = e.title;
  m.proof = e.proof;
  m.items = e.items.map(
    (p): MissionItem => ({ ...p, status: "pending", reason: null, max_attempts: m.settings.max_attempts, attempts: [], commit: null, changed: [] }),
  );
  adopt(m, m.items);
  if (m.settings.approval) {
    m.status = "awaiting_approval";
    commands.push({ type: "report" });
  } else {
    m.status = "running";
  }
}

function tick(m: Mission, e: Of<"tick">, commands: MissionCommand[]): Applied {
  if (m.status !== "running") return DUPLICATE;
  const now = Date.parse(e.at);
  const stop: { item: string; attempt: number }[] = [];
  for (const shared of m.items) {
    const current = shared.attempts.at(-1);
    if (!current || (current.status !== "dispatched" && current.status !== "running")) continue;
    const reason = overdue(m, current, now);
    if (reason === null) continue;
    const item = own(m, shared);
    const last = item.attempts.at(-1);
    if (last) Object.assign(last, { status: "timed_out", reason, finished_at: e.at });
    Object.assign(item, { status: "timed_out", reason });
    stop.push({ item: item.id, attempt: current.n });
  }
  let missionTimedOut = false;
  if (m.reason === null && now - Date.parse(m.created_at) > m.settings.mission_timeout_ms) {
    // The mission's own time is up: stop everything and review what was integrated.
    const reason = `mission timed out after ${span(m.settings.mission_timeout_ms)}`;
    stop.push(...cancelOpenItems(m, reason, e.at));
    m.reason = reason;
    missionTimedOut = true;
  }
  if (stop.length === 0 && !missionTimedOut) return DUPLICATE;
  if (stop.length > 0) commands.push({ type: "cancel_attempts", attempts: stop });
}

/**
 * Why an attempt in flight has run out of time at `now`, or null. Its clock starts with its job,
 * not its dispatch: a job waiting for a runner (beyond the account's quota) has only the longer
 * queue limit against it — once its dispatch is recorded; before, the item's limit. It stops when its agent exited (`agent_exited`; on GitHub: its leg's
 * job ended): what is left, recording its result, is naruto's own jobs' work, which waits for a
 * runner like any job, so that wait is bounded by the queue limit, not by the item's.
 */
function overdue(m: Mission, a: Attempt, now: number): string | null {
  const { item_timeout_ms: itemLimit, queue_timeout_ms: queueLimit } = m.settings;
  if (a.status === "dispatched" && a.started_at === null) {
    // No dispatch recorded (`attempt_dispatched` sets the base): its request failed, or naruto
    // stopped before saving it, so no job of it may be waiting for a runner: the item's own limit.
    if (a.base === null) {
      if (now - Date.parse(a.dispatched_at) <= itemLimit) return null;
      return `timed out: no run of it was recorded within ${span(itemLimit)} (its dispatch failed or was lost)`;
    }
    if (now - Date.parse(a.dispatched_at) <= queueLimit) return null;
    return `timed out: waited ${span(queueLimit)} for a runner and never started (limits.queue_timeout; at most the account's concurrent-job quota runs at once)`;
  }
  const started = Date.parse(a.started_at ?? a.dispatched_at);
  const ran = (a.exited_at === null ? now : Date.parse(a.exited_at)) - started;
  if (ran > itemLimit) return `timed out: no result after ${span(itemLimit)}`;
  if (a.exited_at === null || now - Date.parse(a.exited_at) <= queueLimit) return null;
  return `timed out: its agent exited, but its result did not reach the mission within ${span(queueLimit)} (limits.queue_timeout; naruto's jobs that record it wait for a runner like any job)`;
}

function cancel(m: Mission, e: Of<"cancelled">, commands: MissionCommand[]): Applied {
  if (isMissionTerminal(m.status)) return DUPLICATE;
  const reason = e.by ? `cancelled by ${e.by}` : "cancelled";
  const stop = cancelOpenItems(m, reason, e.at);
  Object.assign(m, { status: "cancelled", reason });
  if (stop.length > 0) commands.push({ type: "cancel_attempts", attempts: stop });
  commands.push({ type: "report" }, { type: "finish", status: "cancelled" });
}

/** Like a cap: nothing new starts and what is in flight is cancelled; the integrated work is still reviewed. */
function stop(m: Mission, e: Of<"stopped">, commands: MissionCommand[]): Applied {
  if ((m.status !== "running" && m.status !== "reviewing") || m.reason === e.reason) return DUPLICATE;
  const cancel = cancelOpenItems(m, e.reason, e.at);
  if (cancel.length > 0) commands.push({ type: "cancel_attempts", attempts: cancel });
  m.reason = e.reason;
}

function retry(m: Mission, e: Of<"retry_requested">): Applied {
  if (m.status === "planning" || m.status === "awaiting_approval" || m.status === "cancelled" || m.status === "failed") {
    throw new IllegalEventError(e.type, `mission ${m.id} is ${m.status}: only a running or finished mission's items can be retried`);
  }
  const failedForGood = (i: MissionItem) => isFailure(i.status) && attemptsLeft(i) === 0;
  let targets: MissionItem[];
  if (e.target === "failed") {
    targets = m.items.filter(failedForGood);
  } else {
    const item = findItem(m, e.target);
    if (!item) throw new IllegalEventError(e.type, `mission ${m.id} has no item "${e.target}"`);
    if (!isFailure(item.status)) {
      throw new IllegalEventError(e.type, `item "${item.id}" is ${item.status}: only failed items can be retried`);
    }
    targets = failedForGood(item) ? [item] : [];
  }
  if (targets.length === 0) return DUPLICATE;
  for (const t of targets) own(m, t).max_attempts = attemptsUsed(t) + 1;
  // Skips are re-decided by the scheduler: those still behind a failure are skipped again.
  for (const i of m.items) if (i.status === "skipped") Object.assign(own(m, i), { status: "pending", reason: null });
  Object.assign(m, { status: "running", verdict: null, reason: null });
}

/** A limit for a reason: whole minutes, or seconds under a minute (not "0 min"). */
function span(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.ceil(ms / 1000)} s`;
}

function expectStatus(m: Mission, type: string, allowed: readonly Mission["status"][]): void {
  if (!allowed.includes(m.status)) {
    throw new IllegalEventError(type, `mission ${m.id} is ${m.status}, expected ${allowed.join(" or ")}`);
  }
}
