import { describe, expect, it } from "vitest";
import { WorkGraphError, type WorkNode } from "../plan/index.ts";
import { simulate, simulateWaves, type Simulation, type SimulationInput } from "./simulate.ts";

function node(id: string, estimate: number, ...deps: string[]): WorkNode {
  return { id, estimate, deps };
}

/** `run("z", 0, 1, 0)`: z ran from 0 to 1 on slot 0. */
function run(id: string, start: number, end: number, slot: number): Simulation["timeline"][number] {
  return { id, start, end, slot };
}

// z → w is the long arm: rank-first starts z at once, plan order would start it late.
const armAndShorts = [node("x", 1), node("y", 1), node("z", 1), node("w", 3, "z")];
const chain = [node("a", 1), node("b", 2, "a"), node("c", 3, "b")];

describe("simulate (list scheduling)", () => {
  it.each<[string, SimulationInput, Simulation]>([
    ["nothing", { nodes: [], slots: 3 }, { makespan: 0, lowerBound: 0, timeline: [] }],
    [
      "a chain, whatever the slots",
      { nodes: chain, slots: 4 },
      { makespan: 6, lowerBound: 6, timeline: [run("a", 0, 1, 0), run("b", 1, 3, 0), run("c", 3, 6, 0)] },
    ],
    [
      "the longest arm first, no barrier",
      { nodes: armAndShorts, slots: 2 },
      { makespan: 4, lowerBound: 4, timeline: [run("z", 0, 1, 0), run("x", 0, 1, 1), run("w", 1, 4, 0), run("y", 1, 2, 1)] },
    ],
    [
      "everything ending at once is released before choosing",
      { nodes: [node("a", 1), node("b", 1), node("p", 1), node("y1", 5, "b"), node("y2", 4, "b")], slots: 2 },
      {
        makespan: 6,
        lowerBound: 6,
        timeline: [run("b", 0, 1, 0), run("a", 0, 1, 1), run("y1", 1, 6, 0), run("y2", 1, 5, 1), run("p", 5, 6, 1)],
      },
    ],
    [
      "one slot runs everything back to back",
      { nodes: armAndShorts, slots: 1 },
      { makespan: 6, lowerBound: 6, timeline: [run("z", 0, 1, 0), run("w", 1, 4, 0), run("x", 4, 5, 0), run("y", 5, 6, 0)] },
    ],
    [
      "ties in input order",
      { nodes: [node("p", 2), node("q", 2), node("r", 2)], slots: 2 },
      { makespan: 4, lowerBound: 3, timeline: [run("p", 0, 2, 0), run("q", 0, 2, 1), run("r", 2, 4, 0)] },
    ],
    [
      "priorities from estimates, times from real durations",
      {
        nodes: [node("a", 5), node("b", 1)],
        slots: 1,
        durations: new Map([
          ["a", 1],
          ["b", 5],
        ]),
      },
      { makespan: 6, lowerBound: 6, timeline: [run("a", 0, 1, 0), run("b", 1, 6, 0)] },
    ],
    [
      "zero-length items",
      { nodes: [node("a", 0), node("b", 0, "a"), node("c", 2, "b"), node("d", 1)], slots: 1 },
      { makespan: 3, lowerBound: 3, timeline: [run("a", 0, 0, 0), run("b", 0, 0, 0), run("c", 0, 2, 0), run("d", 2, 3, 0)] },
    ],
  ])("%s", (_name, input, expected) => {
    expect(simulate(input)).toEqual(expected);
  });

  it.each<[string, SimulationInput, ErrorConstructor | typeof WorkGraphError]>([
    ["zero slots", { nodes: chain, slots: 0 }, RangeError],
    ["fractional slots", { nodes: chain, slots: 1.5 }, RangeError],
    ["a negative duration", { nodes: chain, slots: 1, durations: new Map([["b", -1]]) }, WorkGraphError],
    ["a cycle", { nodes: [node("a", 1, "b"), node("b", 1, "a")], slots: 1 }, WorkGraphError],
  ])("rejects %s", (_name, input, error) => {
    expect(() => simulate(input)).toThrow(error);
    expect(() => simulateWaves(input)).toThrow(error);
  });

  it("schedules 10,000 items", () => {
    const nodes = Array.from({ length: 10_000 }, (_, i) =>
      node(`n${i}`, 1 + (i % 13), ...[i - 1, i - 7, i - 50].filter((j) => j >= 0 && i % 3 !== 0).map((j) => `n${j}`)),
    );
    const result = simulate({ nodes, slots: 64 });
    expect(result.timeline).toHaveLength(10_000);
    expect(result.makespan).toBeGreaterThanOrEqual(result.lowerBound);
    expect(simulateWaves({ nodes, slots: 64 }).timeline).toHaveLength(10_000);
  });
});

describe("simulateWaves (barriers)", () => {
  it.each<[string, SimulationInput, Simulation]>([
    ["nothing", { nodes: [], slots: 2 }, { makespan: 0, lowerBound: 0, timeline: [] }],
    [
      "a wave waits for the whole previous wave",
      { nodes: [node("a", 1), node("b", 5, "a"), node("c", 5)], slots: 2 },
      { makespan: 10, lowerBound: 6, timeline: [run("a", 0, 1, 0), run("c", 0, 5, 1), run("b", 5, 10, 0)] },
    ],
    [
      "within a wave, highest rank first on the slot that frees first",
      { nodes: armAndShorts, slots: 2 },
      { makespan: 5, lowerBound: 4, timeline: [run("z", 0, 1, 0), run("x", 0, 1, 1), run("y", 1, 2, 0), run("w", 2, 5, 0)] },
    ],
  ])("%s", (_name, input, expected) => {
    expect(simulateWaves(input)).toEqual(expected);
  });

  it("is what list scheduling beats on the same graph", () => {
    const nodes = [node("a", 1), node("b", 5, "a"), node("c", 5)];
    expect(simulate({ nodes, slots: 2 }).makespan).toBe(6);
    expect(simulateWaves({ nodes, slots: 2 }).makespan).toBe(10);
  });
});
