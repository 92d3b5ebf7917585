import { describe, expect, it } from "vitest";
import { findCycles, stableTopoOrder } from "./graph.ts";

describe("stableTopoOrder", () => {
  it.each<[string, number[][], number[]]>([
    ["no edges: plan order", [[], [], []], [0, 1, 2]],
    ["a dependency written later goes first", [[2], [], []], [1, 2, 0]],
    ["ties go to the earliest in the plan", [[3], [3], [], []], [2, 3, 0, 1]],
    ["a diamond", [[], [0], [0], [1, 2]], [0, 1, 2, 3]],
    ["a cycle leaves items out", [[1], [0], []], [2]],
  ])("%s", (_name, deps, order) => {
    expect(stableTopoOrder(deps)).toEqual(order);
  });

  it("orders a 10,000-item chain without deep recursion", () => {
    const deps = Array.from({ length: 10_000 }, (_, i) => (i === 0 ? [] : [i - 1]));
    expect(stableTopoOrder(deps)).toEqual([...deps.keys()]);
  });
});

describe("findCycles", () => {
  it.each<[string, number[][], number[][]]>([
    ["no cycle", [[], [0], [1]], []],
    ["a two-cycle", [[1], [0]], [[0, 1]]],
    [
      "two cycles, each once",
      [[2], [0], [1], [], [5], [4]],
      [
        [0, 2, 1],
        [4, 5],
      ],
    ],
    ["a component with several cycles: the shortest through its first item", [[1, 2], [2], [0]], [[0, 2]]],
    ["an item behind a cycle is not in it", [[1], [0], [0]], [[0, 1]]],
  ])("%s", (_name, deps, cycles) => {
    expect(findCycles(deps)).toEqual(cycles);
  });

  it("finds a 10,000-item cycle without deep recursion", () => {
    const deps = Array.from({ length: 10_000 }, (_, i) => [(i + 1) % 10_000]);
    const cycles = findCycles(deps);
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toHaveLength(10_000);
  });
});
