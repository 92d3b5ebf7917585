import { describe, expect, it } from "vitest";
import { computeRanks, criticalPath, indexGraph, totalWork, WorkGraphError, type WorkNode } from "./ranks.ts";

/** `node("b", 3, "a")`: item b, estimate 3, waits for a. */
function node(id: string, estimate: number, ...deps: string[]): WorkNode {
  return { id, estimate, deps };
}

const chain = [node("a", 1), node("b", 2, "a"), node("c", 3, "b")];
// a → b (5) and a → c (1), both → d: the long arm decides a's rank.
const diamond = [node("a", 2), node("b", 5, "a"), node("c", 1, "a"), node("d", 3, "b", "c")];
const twoChains = [node("x1", 4), node("x2", 4, "x1"), node("y1", 1), node("y2", 10, "y1")];

describe("computeRanks", () => {
  it.each([
    ["empty", [], {}],
    ["single", [node("a", 7)], { a: 7 }],
    ["zero estimates", [node("a", 0), node("b", 0, "a")], { a: 0, b: 0 }],
    ["chain", chain, { a: 6, b: 5, c: 3 }],
    ["chain listed backwards", [...chain].reverse(), { a: 6, b: 5, c: 3 }],
    ["diamond", diamond, { a: 10, b: 8, c: 4, d: 3 }],
    ["two chains", twoChains, { x1: 8, x2: 4, y1: 11, y2: 10 }],
    ["duplicate dependency", [node("a", 1), node("b", 1, "a", "a")], { a: 2, b: 1 }],
  ])("%s", (_name, nodes: WorkNode[], expected: Record<string, number>) => {
    expect(Object.fromEntries(computeRanks(nodes))).toEqual(expected);
  });

  it("handles a 10,000-node chain without recursion", () => {
    const nodes = Array.from({ length: 10_000 }, (_, i) => node(`n${i}`, 1, ...(i > 0 ? [`n${i - 1}`] : [])));
    const ranks = computeRanks(nodes);
    expect(ranks.get("n0")).toBe(10_000);
    expect(ranks.get("n9999")).toBe(1);
  });
});

describe("criticalPath and totalWork", () => {
  it.each([
    ["empty", [], 0, 0],
    ["chain", chain, 6, 6],
    ["diamond", diamond, 10, 11],
    ["two chains", twoChains, 11, 19],
  ])("%s", (_name, nodes: WorkNode[], path: number, work: number) => {
    expect(criticalPath(nodes)).toBe(path);
    expect(totalWork(nodes)).toBe(work);
  });
});

describe("indexGraph", () => {
  it("orders dependencies first, free nodes in input order", () => {
    const graph = indexGraph([node("c", 1, "a"), node("a", 1), node("b", 1), node("d", 1, "c", "b")]);
    expect(graph.order).toEqual([1, 2, 0, 3]);
    expect(graph.dependents[1]).toEqual([0]);
  });
});

describe("an invalid graph", () => {
  it.each([
    ["a duplicate id", [node("a", 1), node("a", 1)], "a", `duplicate id "a"`],
    ["an unknown dependency", [node("a", 1, "zz")], "a", `unknown "zz"`],
    ["a cycle", [node("a", 1, "b"), node("b", 1, "a")], "a", "cycle"],
    ["a self-dependency", [node("a", 1, "a")], "a", "cycle"],
    ["a negative estimate", [node("a", -1)], "a", "estimate -1"],
    ["a NaN estimate", [node("a", Number.NaN)], "a", "estimate NaN"],
  ])("rejects %s", (_name, nodes: WorkNode[], id: string, message: string) => {
    const error = catchError(() => computeRanks(nodes));
    expect(error).toBeInstanceOf(WorkGraphError);
    expect(error).toMatchObject({ name: "WorkGraphError", id });
    expect(String(error)).toContain(message);
  });
});

function catchError(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
