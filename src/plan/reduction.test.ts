import { describe, expect, it } from "vitest";
import { dependencyLayers, longestPath, transitiveReduction } from "./reduction.ts";

/** Every earlier item before every later one: what the planner adds for one shared path. */
function clique(n: number): number[][] {
  return Array.from({ length: n }, (_, i) => Array.from({ length: i }, (_, j) => j));
}

/** Whether `to` is reachable from `from` over `deps` (waits-for) edges, by a plain search. */
function reaches(deps: readonly (readonly number[])[], from: number, to: number): boolean {
  const seen = new Set<number>();
  const stack = [to];
  while (stack.length > 0) {
    const v = stack.pop()!;
    for (const d of deps[v] ?? []) {
      if (d === from) return true;
      if (!seen.has(d)) stack.push(d), seen.add(d);
    }
  }
  return false;
}

describe("transitiveReduction", () => {
  it.each([
    ["a chain stays", [[], [0], [1]], [[], [0], [1]]],
    ["a shortcut goes", [[], [0], [0, 1]], [[], [0], [1]]],
    ["a diamond stays", [[], [0], [0], [1, 2]], [[], [0], [0], [1, 2]]],
    ["a diamond's shortcut goes", [[], [0], [0], [0, 1, 2]], [[], [0], [0], [1, 2]]],
    ["duplicates are drawn once", [[], [0, 0]], [[], [0]]],
    ["order within a list is kept", [[], [], [1, 0]], [[], [], [1, 0]]],
  ])("%s", (_name, deps, want) => {
    expect(transitiveReduction(deps)).toEqual(want);
  });

  it("turns the clique of one shared path into a chain", () => {
    const reduced = transitiveReduction(clique(256));
    expect(reduced.flat()).toHaveLength(255);
    reduced.forEach((list, i) => expect(list).toEqual(i === 0 ? [] : [i - 1]));
  });

  it("keeps reachability and drops every implied edge on random graphs", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 20; round++) {
      const n = 2 + Math.floor(random() * 40);
      // Edges point backwards in position, so the graph is acyclic; positions are shuffled by id.
      const deps = Array.from({ length: n }, (_, i) => Array.from({ length: i }, (_, j) => j).filter(() => random() < 0.3));
      const reduced = transitiveReduction(deps);
      for (let a = 0; a < n; a++)
        for (let b = 0; b < n; b++) {
          expect(reaches(reduced, a, b)).toBe(reaches(deps, a, b));
        }
      reduced.forEach((list, v) => {
        for (const d of list) {
          const without = reduced.map((l, w) => (w === v ? l.filter((x) => x !== d) : l));
          expect(reaches(without, d, v)).toBe(false);
        }
      });
    }
  });

  it("refuses a cycle", () => {
    expect(() => transitiveReduction([[1], [0]])).toThrow(RangeError);
  });
});

describe("dependencyLayers and longestPath", () => {
  it("layers by the deepest dependency and walks the longest path", () => {
    const deps = [[], [0], [], [1, 2], [2]];
    expect([...dependencyLayers(deps)]).toEqual([0, 1, 0, 2, 1]);
    expect(longestPath(deps)).toEqual([0, 1, 3]);
    expect(longestPath([])).toEqual([]);
  });
});
