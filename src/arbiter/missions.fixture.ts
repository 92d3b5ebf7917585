/**
 * Missions in the states the arbiter must judge, built with the engine's own builders and
 * `step` (STYLE.md 9: builders, not casts). Shared by the arbiter's tests.
 */
import type { Mission, MissionItem } from "../mission/index.ts";
import type { MissionEvent } from "../mission/index.ts";
import { at, checkpointed, commitOf, finished, integrated, item, missionAfter, planned, requested } from "../../test/support/mission-builders.ts";

/** Two items, `b` after `a`, both integrated: the mission waits for review. */
export function cleanMission(): Mission {
  return missionAfter([requested(), planned([item("a"), item("b", ["a"])]), checkpointed("a"), integrated("a"), checkpointed("b"), integrated("b")]);
}

/** `a` ends with `outcome` (one attempt allowed), so `b` after it is skipped. */
export function failedMission(outcome: Parameters<typeof finished>[2]): Mission {
  return missionAfter([requested({ max_attempts: 1 }), planned([item("a"), item("b", ["a"])]), finished("a", 1, outcome)]);
}

/** `a`'s checkpoint conflicts with the queue. */
export function conflictedMission(): Mission {
  const conflict: MissionEvent = {
    type: "integrated",
    at: at(6),
    queue_head: "b".repeat(40),
    verify_runs: 0,
    results: [{ kind: "conflicted", item: "a", attempt: 1, paths: ["src/a/x.ts"] }],
  };
  return missionAfter([requested({ max_attempts: 1 }), planned([item("a")]), checkpointed("a"), conflict]);
}

/** Cancelled while `a` ran. */
export function cancelledMission(): Mission {
  return missionAfter([requested(), planned([item("a")]), { type: "cancelled", at: at(3), by: "octo" }]);
}

/** Stopped by the cost cap after `a` reported $2 of a $1 cap; `b` is cancelled. */
export function costCappedMission(): Mission {
  return missionAfter([
    requested({ max_cost_usd: 1 }),
    planned([item("a"), item("b")]),
    { type: "attempt_finished", at: at(5), item: "a", attempt: 1, outcome: checkpointOf("a"), cost_usd: 2, tokens_in: 1200, tokens_out: 340 },
    integrated("a"),
  ]);
}

/** The mission's own time ran out while `a` ran. */
export function timedOutMission(): Mission {
  return missionAfter([requested({ item_timeout_ms: 24 * 60 * 60_000 }), planned([item("a")]), { type: "tick", at: at(7 * 60) }]);
}

function checkpointOf(id: string): Parameters<typeof finished>[2] {
  return { kind: "checkpointed", commit: commitOf(id, 1), base: "b".repeat(40), changed: [`src/${id}/x.ts`] };
}

/** `a` is still running. */
export function runningMission(): Mission {
  return missionAfter([requested(), planned([item("a")])]);
}

/** A copy of `m` with one item changed: for states the engine would never produce. */
export function withItem(m: Mission, id: string, change: Partial<MissionItem>): Mission {
  return { ...m, items: m.items.map((i) => (i.id === id ? { ...i, ...change } : i)) };
}
