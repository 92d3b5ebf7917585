import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeRanks, criticalPath, totalWork, type WorkNode } from "../plan/index.ts";
import { nextToStart, type SchedulerItem } from "./scheduler.ts";
import { simulate, simulateWaves, type Simulation } from "./simulate.ts";

/** A random DAG (edges go from lower to higher position), estimates and real durations. */
const plans = fc
  .record({
    estimates: fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 40 }),
    durations: fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 40, maxLength: 40 }),
    edges: fc.array(fc.tuple(fc.nat(39), fc.nat(39)), { maxLength: 80 }),
    slots: fc.integer({ min: 1, max: 8 }),
  })
  .map(({ estimates, durations, edges, slots }) => {
    const nodes: WorkNode[] = estimates.map((estimate, i) => ({
      id: `i${i}`,
      estimate,
      deps: edges.filter(([a, b]) => a !== b && Math.max(a, b) === i).map(([a, b]) => `i${Math.min(a, b)}`),
    }));
    const real = new Map(nodes.map((n, i) => [n.id, durations[i] ?? 0]));
    return { nodes, slots, durations: real };
  });

/** The schedule is feasible: each item once, after its dependencies, one item per slot at a time. */
function expectFeasible(nodes: readonly WorkNode[], durations: ReadonlyMap<string, number>, slots: number, sim: Simulation): void {
  expect(sim.timeline.map((e) => e.id).sort()).toEqual(nodes.map((n) => n.id).sort());
  const byId = new Map(sim.timeline.map((e) => [e.id, e]));
  for (const n of nodes) {
    const entry = byId.get(n.id);
    expect(entry?.end).toBe((entry?.start ?? 0) + (durations.get(n.id) ?? 0));
    for (const d of n.deps) expect(entry?.start).toBeGreaterThanOrEqual(byId.get(d)?.end ?? Number.POSITIVE_INFINITY);
  }
  for (let slot = 0; slot < slots; slot++) {
    const on = sim.timeline.filter((e) => e.slot === slot).sort((a, b) => a.start - b.start || a.end - b.end);
    on.slice(1).forEach((e, k) => expect(e.start).toBeGreaterThanOrEqual(on[k]?.end ?? 0));
  }
  expect(sim.timeline.every((e) => e.slot >= 0 && e.slot < slots)).toBe(true);
  expect(sim.makespan).toBe(Math.max(0, ...sim.timeline.map((e) => e.end)));
}

describe("simulation properties", () => {
  it("list scheduling is feasible, at least the lower bound and within Graham's bound", () => {
    fc.assert(
      fc.property(plans, ({ nodes, slots, durations }) => {
        const sim = simulate({ nodes, slots, durations });
        expectFeasible(nodes, durations, slots, sim);
        const real = nodes.map((n) => ({ ...n, estimate: durations.get(n.id) ?? 0 }));
        const [path, work] = [criticalPath(real), totalWork(real)];
        expect(sim.lowerBound).toBe(Math.max(path, work / slots));
        expect(sim.makespan).toBeGreaterThanOrEqual(sim.lowerBound);
        // Graham (1966): any schedule that never idles a slot while an item is ready.
        expect(sim.makespan).toBeLessThanOrEqual(work / slots + (1 - 1 / slots) * path + 1e-9);
      }),
      { numRuns: 400 },
    );
  });

  it("wave-by-wave scheduling is feasible and at least the lower bound", () => {
    fc.assert(
      fc.property(plans, ({ nodes, slots, durations }) => {
        const sim = simulateWaves({ nodes, slots, durations });
        expectFeasible(nodes, durations, slots, sim);
        expect(sim.makespan).toBeGreaterThanOrEqual(sim.lowerBound);
      }),
      { numRuns: 400 },
    );
  });

  it("is deterministic", () => {
    fc.assert(
      fc.property(plans, (input) => {
        expect(simulate(input)).toEqual(simulate(input));
        expect(simulateWaves(input)).toEqual(simulateWaves(input));
      }),
      { numRuns: 50 },
    );
  });

  it("starts what nextToStart would start, when it would", () => {
    fc.assert(
      fc.property(plans, ({ nodes, slots, durations }) => {
        const sim = simulate({ nodes, slots, durations });
        expect(drive(nodes, slots, durations)).toEqual(new Map(sim.timeline.map((e) => [e.id, e.start])));
      }),
      { numRuns: 300 },
    );
  });
});

/** Runs the real scheduling policy event by event and returns every item's start time. */
function drive(nodes: readonly WorkNode[], slots: number, durations: ReadonlyMap<string, number>): Map<string, number> {
  const ranks = computeRanks(nodes);
  let items: SchedulerItem[] = nodes.map((n) => ({ id: n.id, deps: n.deps, rank: ranks.get(n.id) ?? 0, status: "pending", attemptsLeft: 1 }));
  const starts = new Map<string, number>();
  const ends = new Map<string, number>();
  let now = 0;
  for (;;) {
    const { start } = nextToStart({ items }, { maxParallel: slots });
    for (const id of start) {
      starts.set(id, now);
      ends.set(id, now + (durations.get(id) ?? 0));
    }
    const started = new Set(start);
    items = items.map((it) => (started.has(it.id) ? { ...it, status: "running", attemptsLeft: 0 } : it));
    const running = items.filter((it) => it.status === "running");
    if (running.length === 0) return starts;
    now = Math.min(...running.map((it) => ends.get(it.id) ?? 0));
    items = items.map((it) => (it.status === "running" && ends.get(it.id) === now ? { ...it, status: "integrated" } : it));
  }
}
