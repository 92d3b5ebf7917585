import { describe, expect, it } from "vitest";
import { MAX_PER_MATRIX, nextToStart, type SchedulerItem, type SchedulerLimits } from "./scheduler.ts";
import type { ItemStatus } from "./status.ts";

/** `item("b", "pending", { deps: ["a"] })`: rank 1 and one attempt left unless given. */
function item(id: string, status: ItemStatus, more: Partial<Omit<SchedulerItem, "id" | "status">> = {}): SchedulerItem {
  return { id, status, deps: [], rank: 1, attemptsLeft: 1, ...more };
}

const wide: SchedulerLimits = { maxParallel: 100 };

describe("readiness", () => {
  it.each<[string, ItemStatus, number, boolean]>([
    ["integrated", "integrated", 0, true],
    ["checkpointed (not yet on the queue)", "checkpointed", 0, false],
    ["running", "running", 0, false],
    ["pending", "pending", 1, false],
    ["ready", "ready", 1, false],
    ["failed with attempts left", "failed", 1, false],
    ["timed out with attempts left", "timed_out", 2, false],
  ])("a dependency that is %s → start: %s", (_name, status, attemptsLeft, starts) => {
    const items = [item("a", status, { attemptsLeft, rank: 2 }), item("b", "pending", { deps: ["a"] })];
    const decision = nextToStart({ items }, { maxParallel: 1_000 });
    expect(decision.start.includes("b")).toBe(starts);
    expect(decision.skip).toEqual([]);
  });

  it("needs every dependency integrated", () => {
    const items = [item("a", "integrated"), item("b", "running"), item("c", "pending", { deps: ["a", "b"] })];
    expect(nextToStart({ items }, wide).start).toEqual([]);
  });

  it.each<[ItemStatus, number, boolean]>([
    ["pending", 1, true],
    ["ready", 1, true],
    ["failed", 1, true],
    ["conflicted", 2, true],
    ["out_of_scope", 1, true],
    ["timed_out", 1, true],
    ["failed", 0, false],
    ["running", 1, false],
    ["checkpointed", 1, false],
    ["integrated", 1, false],
    ["skipped", 1, false],
    ["cancelled", 1, false],
  ])("a free item that is %s with %i attempts left → start: %s", (status, attemptsLeft, starts) => {
    const decision = nextToStart({ items: [item("a", status, { attemptsLeft })] }, wide);
    expect(decision.start).toEqual(starts ? ["a"] : []);
  });
});

describe("order and limits", () => {
  const items = [
    item("low", "pending", { rank: 1 }),
    item("high", "pending", { rank: 9 }),
    item("tie-first", "ready", { rank: 5 }),
    item("tie-second", "pending", { rank: 5 }),
    item("retry", "conflicted", { rank: 7, attemptsLeft: 1 }),
  ];
  it.each<[string, SchedulerItem[], SchedulerLimits, string[], string[]]>([
    ["highest rank first, ties in plan order", items, wide, ["high", "retry", "tie-first", "tie-second", "low"], []],
    ["up to maxParallel", items, { maxParallel: 2 }, ["high", "retry"], ["tie-first", "tie-second", "low"]],
    [
      "running items occupy agents",
      [...items, item("busy-1", "running"), item("busy-2", "running")],
      { maxParallel: 3 },
      ["high"],
      ["retry", "tie-first", "tie-second", "low"],
    ],
    [
      "checkpointed items do not",
      [...items, item("done-1", "checkpointed"), item("done-2", "checkpointed")],
      { maxParallel: 1 },
      ["high"],
      ["retry", "tie-first", "tie-second", "low"],
    ],
    [
      "nor do running items whose agent has exited (naruto checks what it left)",
      [...items, item("busy-1", "running"), item("exited-1", "running", { agentExited: true })],
      { maxParallel: 2 },
      ["high"],
      ["retry", "tie-first", "tie-second", "low"],
    ],
    [
      "nothing when already over the limit (limit lowered)",
      [...items, item("busy-1", "running"), item("busy-2", "running")],
      { maxParallel: 1 },
      [],
      ["high", "retry", "tie-first", "tie-second", "low"],
    ],
    ["up to maxPerMatrix", items, { maxParallel: 100, maxPerMatrix: 1 }, ["high"], ["retry", "tie-first", "tie-second", "low"]],
  ])("%s", (_name, state, limits, start, ready) => {
    const decision = nextToStart({ items: state }, limits);
    expect(decision.start).toEqual(start);
    expect(decision.ready).toEqual(ready);
  });

  it.each<[string, SchedulerLimits, number]>([
    ["no more than one Actions matrix by default", { maxParallel: 1_000 }, MAX_PER_MATRIX],
    ["no more than one Actions matrix when asked for more", { maxParallel: 1_000, maxPerMatrix: 999 }, 256],
    ["no limit on parallelism", { maxParallel: Number.POSITIVE_INFINITY }, 256],
    ["fewer when asked", { maxParallel: 1_000, maxPerMatrix: 10 }, 10],
  ])("%s", (_name, limits, count) => {
    const many = Array.from({ length: 1_000 }, (_, i) => item(`n${i}`, "pending", { rank: i % 7 }));
    const decision = nextToStart({ items: many }, limits);
    expect(decision.start).toHaveLength(count);
    expect(decision.ready).toHaveLength(1_000 - count);
    // Those started outrank those left waiting.
    const rank = (id: string): number => Number(id.slice(1)) % 7;
    expect(Math.min(...decision.start.map(rank))).toBeGreaterThanOrEqual(Math.max(...decision.ready.map(rank)));
  });

  it.each<[string, SchedulerLimits]>([
    ["zero maxParallel", { maxParallel: 0 }],
    ["fractional maxParallel", { maxParallel: 1.5 }],
    ["NaN maxParallel", { maxParallel: Number.NaN }],
    ["zero maxPerMatrix", { maxParallel: 4, maxPerMatrix: 0 }],
  ])("rejects %s", (_name, limits) => {
    expect(() => nextToStart({ items: [item("a", "pending")] }, limits)).toThrow(RangeError);
  });

  it("rejects an unknown dependency and a rank that is not a number", () => {
    expect(() => nextToStart({ items: [item("a", "pending", { deps: ["zz"] })] }, wide)).toThrow(/unknown "zz"/);
    expect(() => nextToStart({ items: [item("a", "pending", { rank: Number.NaN })] }, wide)).toThrow(/rank NaN/);
  });
});
