/**
 * `refreshed`: the queue now stands on the base branch as it is (issue 37). Items replayed keep
 * `integrated` with their new queue commit; an item whose replay conflicted or failed is that
 * failure again (retried from the new head while it has attempts, or on `retry`); an item not
 * replayed because a dependency fell out is skipped with the reason. The verdict was of the old
 * queue: it is gone, and a finished mission goes back to work or to review.
 */
import { DUPLICATE, type Applied } from "./attempt-events.ts";
import type { Mission } from "./document.ts";
import { findItem, own } from "./draft.ts";
import { IllegalEventError } from "./errors.ts";
import type { MissionEvent } from "./events.ts";

type Refreshed = Extract<MissionEvent, { type: "refreshed" }>;

export function applyRefreshed(m: Mission, e: Refreshed): Applied {
  if (m.base.commit === e.base.commit && m.queue.head === e.queue_head) return DUPLICATE;
  if (m.kind !== "run" || m.status === "planning" || m.status === "awaiting_approval" || m.status === "failed" || m.status === "cancelled") {
    throw new IllegalEventError(
      e.type,
      `mission ${m.id} is ${m.kind === "run" ? m.status : "a review"}: only a running or finished mission's queue can be refreshed`,
    );
  }
  if (m.base.commit !== e.from)
    throw new IllegalEventError(e.type, `mission ${m.id} is on ${m.base.commit.slice(0, 12)}, the refresh was from ${e.from.slice(0, 12)}`);
  const dropped: { item: string; reason: string }[] = [];
  const short = e.base.commit.slice(0, 12);
  for (const r of e.results) {
    const shared = findItem(m, r.item);
    if (!shared) throw new IllegalEventError(e.type, `mission ${m.id} has no item "${r.item}"`);
    const item = own(m, shared);
    const attempt = item.attempts.find((a) => a.n === r.attempt);
    if (!attempt) throw new IllegalEventError(e.type, `item "${r.item}" has no attempt ${r.attempt}`);
    const fail = (status: "conflicted" | "failed", attemptStatus: "conflicted" | "verify_failed", reason: string) => {
      Object.assign(attempt, { status: attemptStatus, reason });
      Object.assign(item, { status, reason, commit: null, changed: [] });
      dropped.push({ item: r.item, reason });
    };
    switch (r.kind) {
      case "integrated":
        Object.assign(item, { commit: r.commit, changed: r.changed });
        break;
      case "conflicted":
        fail("conflicted", "conflicted", `conflicts with the new base ${short} (${e.base.ref}) on ${r.paths.join(", ")}`);
        break;
      case "verify_failed":
        fail("failed", "verify_failed", `queue verification failed on the new base ${short}:\n${r.output}`);
        break;
      case "flaky":
        // Its checkpoint waits for the queue again, as after any flip.
        Object.assign(attempt, { status: "checkpointed" });
        Object.assign(item, { status: "checkpointed", reason: null, commit: null, changed: [] });
        m.queue.flips = [...m.queue.flips, { at: e.at, commit: r.candidate, item: r.item, attempt: r.attempt, runs: r.runs }];
        dropped.push({ item: r.item, reason: "its verify flipped on the new base; it waits for the next batch" });
        break;
    }
  }
  for (const s of e.skipped) {
    const shared = findItem(m, s.item);
    if (!shared) throw new IllegalEventError(e.type, `mission ${m.id} has no item "${s.item}"`);
    Object.assign(own(m, shared), { status: "skipped", reason: s.reason, commit: null, changed: [] });
    dropped.push(s);
  }
  m.base = { ...e.base };
  if (e.base_check !== null) {
    if (e.base_check.runs.includes(true) && e.base_check.runs.includes(false)) {
      m.queue.flips = [...m.queue.flips, { at: e.at, commit: e.base_check.commit, item: null, attempt: null, runs: e.base_check.runs }];
    }
    m.queue.base_check = e.base_check;
  }
  m.queue.head = e.queue_head;
  // A refresh landed: the run under way did its work (onto the base as it found it, which may be
  // newer than the one it was asked for).
  m.queue.refresh_requested = null;
  m.queue.base_moved = null;
  m.queue.verify_runs += e.verify_runs;
  m.queue.report = e.report;
  m.queue.refreshes = [
    ...m.queue.refreshes,
    { at: e.at, from: e.from, to: e.base.commit, head: e.queue_head, replayed: e.results.filter((r) => r.kind === "integrated").length, dropped },
  ];
  // The verdict judged the old queue. A finished mission works again (retries, waiting
  // checkpoints) or goes to review once more (advance decides).
  if (m.status === "done" || m.status === "reviewing") Object.assign(m, { status: "running", verdict: null, reason: null });
}

/**
 * How long an asked-for refresh run counts as under way when it never lands or says it ended
 * (its runner lost, its run cancelled before its publish job): two jobs of at most 6 h each.
 */
export const REFRESH_LEASE_MS = 12 * 3600 * 1000;

/** The refresh run under way at `at`, if any: asked for, not landed, not ended, not expired. */
export function refreshUnderWay(m: Mission, at: string): { readonly onto: string; readonly at: string } | null {
  const asked = m.queue.refresh_requested;
  if (asked === null || asked.onto === m.base.commit) return null;
  return Date.parse(at) - Date.parse(asked.at) < REFRESH_LEASE_MS ? asked : null;
}

type RefreshRequested = Extract<MissionEvent, { type: "refresh_requested" }>;

/**
 * `refresh_requested`: the mission's one refresh lease, taken with the state's compare-and-swap
 * before a refresh run is dispatched. The same request again (a redelivered push, a second App
 * replica) is a duplicate; another while one is under way is refused unless it is a handover.
 */
export function applyRefreshRequested(m: Mission, e: RefreshRequested): Applied {
  if (e.onto === null) {
    if (m.queue.refresh_requested === null) return DUPLICATE;
    m.queue.refresh_requested = null;
    return;
  }
  if (!e.handover && m.queue.refresh_requested?.onto === e.onto) return DUPLICATE;
  if (m.kind !== "run" || m.status === "planning" || m.status === "awaiting_approval" || m.status === "failed" || m.status === "cancelled")
    throw new IllegalEventError(e.type, `mission ${m.id} is ${m.kind === "run" ? m.status : "a review"}: it has no queue to refresh`);
  if (e.onto === m.base.commit) throw new IllegalEventError(e.type, `mission ${m.id} is on ${e.onto.slice(0, 12)} already`);
  const under = refreshUnderWay(m, e.at);
  if (under !== null && !e.handover)
    throw new IllegalEventError(e.type, `a refresh of mission ${m.id} onto ${under.onto.slice(0, 12)} is under way (asked for at ${under.at})`);
  m.queue.refresh_requested = { onto: e.onto, at: e.at };
}

type BaseMoved = Extract<MissionEvent, { type: "base_moved" }>;

/** `base_moved`: the mission ended while its base branch stood elsewhere (its head: `commit`). */
export function applyBaseMoved(m: Mission, e: BaseMoved): Applied {
  if (m.queue.base_moved?.commit === e.commit) return DUPLICATE;
  if (m.kind !== "run" || m.status !== "done")
    throw new IllegalEventError(e.type, `mission ${m.id} is ${m.kind === "run" ? m.status : "a review"}: only a finished mission's base is checked`);
  if (e.commit === m.base.commit) throw new IllegalEventError(e.type, `mission ${m.id} is on ${e.commit.slice(0, 12)}: its base did not move`);
  m.queue.base_moved = { commit: e.commit, at: e.at };
}
