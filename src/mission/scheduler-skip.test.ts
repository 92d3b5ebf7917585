import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nextToStart, type SchedulerItem, type SkipDecision } from "./scheduler.ts";
import { isFinal, type ItemStatus } from "./status.ts";

function item(id: string, status: ItemStatus, more: Partial<Omit<SchedulerItem, "id" | "status">> = {}): SchedulerItem {
  return { id, status, deps: [], rank: 1, attemptsLeft: 0, ...more };
}

/** a → b → c → d, with a in the given status. */
function chainBehind(status: ItemStatus, attemptsLeft = 0): SchedulerItem[] {
  return [
    item("a", status, { attemptsLeft }),
    item("b", "pending", { deps: ["a"] }),
    item("c", "ready", { deps: ["b"] }),
    item("d", "pending", { deps: ["c"] }),
  ];
}

describe("skipping", () => {
  it.each<[string, SchedulerItem[], SkipDecision[]]>([
    [
      "a chain behind a failure for good",
      chainBehind("out_of_scope"),
      [
        { id: "b", reason: `dependency "a" failed (out_of_scope)` },
        { id: "c", reason: `dependency "a" failed (out_of_scope), via "b"` },
        { id: "d", reason: `dependency "a" failed (out_of_scope), via "c"` },
      ],
    ],
    ["a timeout", chainBehind("timed_out").slice(0, 2), [{ id: "b", reason: `dependency "a" failed (timed_out)` }]],
    ["a conflict", chainBehind("conflicted").slice(0, 2), [{ id: "b", reason: `dependency "a" failed (conflicted)` }]],
    ["a cancelled item", chainBehind("cancelled").slice(0, 2), [{ id: "b", reason: `dependency "a" was cancelled` }]],
    ["a skipped item", chainBehind("skipped").slice(0, 2), [{ id: "b", reason: `dependency "a" was skipped` }]],
    ["nothing behind a failure with attempts left", chainBehind("failed", 1), []],
    ["nothing behind an integrated item", chainBehind("integrated"), []],
    [
      "the first dependency that failed, in the item's order",
      [item("x", "failed"), item("y", "cancelled"), item("z", "pending", { deps: ["y", "x"] }), item("w", "pending", { deps: ["x", "y"] })],
      [
        { id: "z", reason: `dependency "y" was cancelled` },
        { id: "w", reason: `dependency "x" failed (failed)` },
      ],
    ],
    [
      "in plan order, whatever the graph's order",
      [item("late", "pending", { deps: ["mid"] }), item("mid", "pending", { deps: ["root"] }), item("root", "failed")],
      [
        { id: "late", reason: `dependency "root" failed (failed), via "mid"` },
        { id: "mid", reason: `dependency "root" failed (failed)` },
      ],
    ],
  ])("%s", (_name, items, skip) => {
    expect(nextToStart({ items }, { maxParallel: 4 }).skip).toEqual(skip);
  });

  it("skips only what is behind the failure and starts the rest", () => {
    const items = [
      item("bad", "failed"),
      item("good", "integrated"),
      item("behind", "pending", { deps: ["bad", "good"] }),
      item("free", "pending", { deps: ["good"] }),
    ];
    const decision = nextToStart({ items }, { maxParallel: 4 });
    expect(decision.skip.map((s) => s.id)).toEqual(["behind"]);
    expect(decision.start).toEqual(["free"]);
  });

  it("never skips an item that has started", () => {
    // An engine that cancels an integrated item's dependency cannot undo what already ran.
    const items = [item("a", "cancelled"), item("b", "running", { deps: ["a"] }), item("c", "checkpointed", { deps: ["a"] })];
    expect(nextToStart({ items }, { maxParallel: 4 }).skip).toEqual([]);
  });
});

/** A random graph (edges from lower to higher position) and each item's attempt outcomes. */
const missions = fc.record({
  size: fc.integer({ min: 1, max: 25 }),
  edges: fc.array(fc.tuple(fc.nat(24), fc.nat(24)), { maxLength: 60 }),
  outcomes: fc.array(fc.array(fc.constantFrom<ItemStatus>("integrated", "failed", "out_of_scope", "timed_out", "conflicted", "cancelled"), { maxLength: 3 }), {
    minLength: 25,
    maxLength: 25,
  }),
  maxAttempts: fc.integer({ min: 1, max: 3 }),
  maxParallel: fc.integer({ min: 1, max: 5 }),
  finishOrder: fc.array(fc.nat(), { minLength: 1, maxLength: 20 }),
});

describe("a whole mission driven by the scheduler", () => {
  it("starts only ready items, respects maxParallel, and leaves nothing pending", () => {
    fc.assert(
      fc.property(missions, ({ size, edges, outcomes, maxAttempts, maxParallel, finishOrder }) => {
        const ids = Array.from({ length: size }, (_, i) => `i${i}`);
        const deps = ids.map((_, i) => [...new Set(edges.filter(([a, b]) => Math.max(a, b) === i && a !== b).map(([a, b]) => ids[Math.min(a, b)] ?? ""))]);
        let items = ids.map((id, i) => item(id, "pending", { deps: deps[i] ?? [], rank: size - i, attemptsLeft: maxAttempts }));
        const attempts = new Map<string, number>();
        for (let step = 0; ; step++) {
          const decision = nextToStart({ items }, { maxParallel });
          const byId = new Map(items.map((it) => [it.id, it]));
          for (const id of decision.start) {
            expect(byId.get(id)?.deps.every((d) => byId.get(d)?.status === "integrated")).toBe(true);
          }
          for (const { reason } of decision.skip) {
            const root = /^dependency "([^"]+)"/.exec(reason)?.[1] ?? "";
            const cause = byId.get(root);
            expect(cause !== undefined && isFinal(cause.status, cause.attemptsLeft) && cause.status !== "integrated").toBe(true);
          }
          const starting = new Set(decision.start);
          const skipping = new Set(decision.skip.map((s) => s.id));
          items = items.map((it) =>
            starting.has(it.id) ? { ...it, status: "running", attemptsLeft: it.attemptsLeft - 1 } : skipping.has(it.id) ? { ...it, status: "skipped" } : it,
          );
          const running = items.filter((it) => it.status === "running");
          expect(running.length).toBeLessThanOrEqual(maxParallel);
          if (running.length === 0) {
            // Nothing runs and nothing started: every item must be settled for good.
            expect(items.filter((it) => !isFinal(it.status, it.attemptsLeft))).toEqual([]);
            return;
          }
          // Finish one running attempt with its scripted outcome (default: integrated).
          const done = running[(finishOrder[step % finishOrder.length] ?? 0) % running.length];
          if (done === undefined) return;
          const attempt = attempts.get(done.id) ?? 0;
          attempts.set(done.id, attempt + 1);
          const outcome = outcomes[ids.indexOf(done.id)]?.[attempt] ?? "integrated";
          items = items.map((it) => (it.id === done.id ? { ...it, status: outcome } : it));
        }
      }),
      { numRuns: 300 },
    );
  });
});
