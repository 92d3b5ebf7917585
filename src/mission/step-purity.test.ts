/**
 * `step` copies only what an event changes (src/mission/draft.ts) and never modifies the mission
 * it is given: every input here is deep-frozen (a write to it throws), and every result must be
 * what a step on a private deep copy gives.
 */
import { describe, expect, it } from "vitest";
import type { Mission } from "./document.ts";
import type { MissionEvent } from "./events.ts";
import { step, type StepResult } from "./step.ts";
import { at, checkpointed, finished, integrated, item, planned, requested } from "../../test/support/mission-builders.ts";
import { runSimulatedMission, simulatedPlan } from "../../test/support/simulated-mission.ts";

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A step on a frozen input, checked against a step on a private copy of it. */
function frozenStep(mission: Mission | null, event: MissionEvent): StepResult {
  const copy = structuredClone(mission);
  const result = step(deepFreeze(mission), event);
  expect(result).toEqual(step(copy, event));
  return result;
}

function frozenRun(events: MissionEvent[]): StepResult[] {
  const results: StepResult[] = [];
  let mission: Mission | null = null;
  for (const e of events) {
    const r = frozenStep(mission, e);
    results.push(r);
    mission = r.mission;
  }
  return results;
}

describe("step on a deep-frozen mission", () => {
  it("runs a whole simulated mission of 64 items, from request to verdict, sharing what did not change", async () => {
    let mission: Mission | null = null;
    let shared = 0;
    const { mission: last, events } = await runSimulatedMission({
      items: simulatedPlan(64),
      apply: (e) => {
        const before = mission;
        const r = frozenStep(before, e);
        if (before !== null && !r.duplicate) shared += r.mission.items.filter((x, i) => x === before.items[i]).length;
        mission = r.mission;
        return r;
      },
    });
    expect(last.status).toBe("done");
    expect(last.items.every((i) => i.status === "integrated")).toBe(true);
    expect(events).toBeGreaterThan(64 * 3);
    // Most items are the very same objects from one mission to the next.
    expect(shared / events).toBeGreaterThan(50);
  });

  it("fails, retries, times out, records tampering and cancels without touching its input", () => {
    const results = frozenRun([
      requested({ max_parallel: 2, max_attempts: 2 }),
      planned([item("a"), item("b"), item("c", ["a"]), item("d", ["b"])]),
      { type: "attempt_started", at: at(2), item: "a", attempt: 1, base: "b".repeat(40), runner: "pid 1" },
      { type: "attempt_started", at: at(2), item: "b", attempt: 1, base: "b".repeat(40), runner: "pid 2" },
      finished("a", 1, { kind: "failed", reason: "the agent gave up" }, 3),
      checkpointed("a", 2),
      integrated("a", 2),
      { type: "tick", at: at(60) },
      {
        type: "tampered",
        at: at(61),
        findings: [{ at: at(61), what: "refs/heads/main", before: "1".repeat(40), after: "2".repeat(40), blame: "agents", attempts: ["c#1"], action: null }],
      },
      { type: "retry_requested", at: at(62), target: "failed" },
      { type: "cancelled", at: at(63), by: "someone" },
    ]);
    const m = results.at(-1)?.mission;
    expect(m?.status).toBe("cancelled");
    expect(m?.items.map((i) => [i.id, i.status])).toEqual([
      ["a", "integrated"],
      ["b", "cancelled"],
      ["c", "cancelled"],
      ["d", "cancelled"],
    ]);
    expect(results[7]?.mission.items.find((i) => i.id === "b")?.attempts.map((a) => a.status)).toEqual(["timed_out", "dispatched"]);
  });

  it("gives back the very mission it was given for a redelivered event", () => {
    const [, second] = frozenRun([requested(), planned([item("a")])]);
    const again = frozenStep(second!.mission, planned([item("a")]));
    expect(again.duplicate).toBe(true);
    expect(again.mission).toBe(second!.mission);
  });
});
