import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stableTopoOrder } from "./graph.ts";
import { declaredHops, orderPlan } from "./order.ts";
import { pathsOverlap } from "./paths.ts";
import { item, mustPlan, planArb, rawPlan } from "./test-utils.ts";
import type { Plan } from "./types.ts";

/** Readable form: [a, b, path, order, edge] by id. */
function ordered(plan: Plan, options: { strict?: boolean } = {}) {
  const id = (i: number) => plan.items[i]?.id;
  const result = orderPlan(plan, options);
  return {
    conflicts: result.conflicts.map((c) => [id(c.a), id(c.b), c.path.path, c.order, c.edge && `${id(c.edge.from)}→${id(c.edge.to)}`]),
    added: Object.fromEntries(result.addedAfter.flatMap((list, b) => (list.length ? [[id(b), list.map(id)]] : []))),
  };
}

/** Brute force: may `from` reach `to` through `edges` (dependency → dependent)? */
function reaches(edges: number[][], from: number, to: number): boolean {
  const seen = new Set([from]);
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    for (const next of edges[queue[head]!] ?? []) {
      if (next === to) return true;
      if (!seen.has(next)) queue.push(next), seen.add(next);
    }
  }
  return false;
}

function edgesOf(plan: Plan, addedAfter: readonly (readonly number[])[] = []): number[][] {
  const pos = new Map(plan.items.map((it, i) => [it.id, i]));
  const out: number[][] = plan.items.map(() => []);
  plan.items.forEach((it, i) => {
    for (const dep of it.after) out[pos.get(dep)!]!.push(i);
    for (const dep of addedAfter[i] ?? []) out[dep]!.push(i);
  });
  return out;
}

describe("orderPlan", () => {
  it("adds an edge from the earlier item in plan order", () => {
    expect(ordered(mustPlan(rawPlan(item("a", ["src/"]), item("b", ["src/x.ts"]))))).toEqual({
      conflicts: [["a", "b", "src/x.ts", "added", "a→b"]],
      added: { b: ["a"] },
    });
  });

  it("keeps a pair that the plan orders directly as declared", () => {
    expect(ordered(mustPlan(rawPlan(item("a", ["f"]), item("b", ["f"], ["a"]))))).toEqual({
      conflicts: [["a", "b", "f", "declared", "a→b"]],
      added: {},
    });
  });

  it("names the first hop of a declared chain", () => {
    const plan = mustPlan(rawPlan(item("a", ["f"]), item("side", ["s"], ["a"]), item("mid", ["m"], ["a"]), item("b", ["f"], ["mid"])));
    expect(ordered(plan).conflicts).toEqual([["a", "b", "f", "declared", "a→mid"]]);
  });

  it("orients a pair by the dependency order, not by plan order", () => {
    // c is written first but waits for d, so d comes first in the stable topological order.
    const plan = mustPlan(rawPlan(item("c", ["f"], ["d"]), item("e", ["f"]), item("d", ["d.ts"])));
    expect(ordered(plan)).toEqual({ conflicts: [["e", "c", "f", "added", "e→c"]], added: { c: ["e"] } });
  });

  it("adds one edge per unordered pair, listed in plan order", () => {
    const plan = mustPlan(rawPlan(item("x", ["f"]), item("y", ["f"]), item("z", ["f"])));
    expect(ordered(plan)).toEqual({
      conflicts: [
        ["x", "y", "f", "added", "x→y"],
        ["x", "z", "f", "added", "x→z"],
        ["y", "z", "f", "added", "y→z"],
      ],
      added: { y: ["x"], z: ["x", "y"] },
    });
  });

  it("in strict mode leaves unordered pairs unordered and adds nothing", () => {
    const plan = mustPlan(rawPlan(item("a", ["f"]), item("b", ["f"]), item("c", ["f"], ["a"])));
    expect(ordered(plan, { strict: true })).toEqual({
      conflicts: [
        ["a", "b", "f", "unordered", null],
        ["a", "c", "f", "declared", "a→c"],
        ["b", "c", "f", "unordered", null],
      ],
      added: {},
    });
  });

  it("for random plans: no two items that may run concurrently write overlapping paths", () => {
    fc.assert(
      fc.property(planArb({ maxItems: 12 }), (plan) => {
        const result = orderPlan(plan);
        const edges = edgesOf(plan, result.addedAfter);
        // Adding edges never closes a cycle.
        expect(stableTopoOrder(plan.items.map((_, i) => edges.flatMap((to, from) => (to.includes(i) ? [from] : []))))).toHaveLength(plan.items.length);
        plan.items.forEach((x, i) =>
          plan.items.forEach((y, j) => {
            if (i >= j) return;
            const overlap = x.writes.some((p) => y.writes.some((q) => pathsOverlap(p, q)));
            if (overlap) expect(reaches(edges, i, j) || reaches(edges, j, i)).toBe(true);
          }),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("for random plans: 'declared' exactly when the declared edges order the pair, edges only where needed", () => {
    fc.assert(
      fc.property(planArb({ maxItems: 12 }), fc.boolean(), (plan, strict) => {
        const declared = edgesOf(plan);
        const result = orderPlan(plan, { strict });
        for (const c of result.conflicts) {
          expect(c.order === "declared").toBe(reaches(declared, c.a, c.b));
          expect(reaches(declared, c.b, c.a)).toBe(false);
          if (c.order === "declared") expect(c.edge && (c.edge.to === c.b || reaches(declared, c.edge.to, c.b))).toBe(true);
        }
        const addedCount = result.addedAfter.reduce((n, list) => n + list.length, 0);
        expect(addedCount).toBe(strict ? 0 : result.conflicts.filter((c) => c.order === "added").length);
      }),
      { numRuns: 300 },
    );
  });

  it("finds the same first hops whatever the chunk size of the reachability closure", () => {
    fc.assert(
      fc.property(planArb({ maxItems: 14 }), fc.constantFrom(1, 3, 32, 8192), (plan, chunkBits) => {
        const declared = edgesOf(plan);
        const pos = new Map(plan.items.map((it, i) => [it.id, i]));
        const deps = plan.items.map((it) => it.after.map((id) => pos.get(id)!));
        const topo = stableTopoOrder(deps);
        const pairs = topo.flatMap((a, x) => topo.slice(x + 1).map((b) => [a, b] as const));
        const hops = declaredHops(
          deps,
          topo,
          Int32Array.from(pairs, ([a]) => a),
          Int32Array.from(pairs, ([, b]) => b),
          chunkBits,
        );
        pairs.forEach(([a, b], k) => {
          const expected = !reaches(declared, a, b)
            ? -1
            : declared[a]!.includes(b)
              ? b
              : [...declared[a]!].sort((x, y) => x - y).find((d) => reaches(declared, d, b))!;
          expect(hops[k]).toBe(expected);
        });
      }),
      { numRuns: 300 },
    );
  });
});
