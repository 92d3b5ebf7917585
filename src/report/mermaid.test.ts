import { describe, expect, it } from "vitest";
import type { Mission } from "../mission/document.ts";
import { ITEM_STATUSES, type ItemStatus } from "../mission/status.ts";
import { mermaidBlock, mermaidLabel, planGraph } from "./mermaid.ts";
import { hostileMission, hugeMission, reviewedMission } from "./missions.fixture.ts";

function withStatus(m: Mission, status: ItemStatus): Mission {
  return { ...m, items: m.items.map((i, n) => (n === 0 ? { ...i, status } : i)) };
}

describe("planGraph", () => {
  it("draws declared edges solid, added edges dotted, nodes coloured by status", () => {
    expect(planGraph(reviewedMission())).toMatchSnapshot();
  });

  it.each<[ItemStatus, string | null]>([
    ["pending", null],
    ["ready", null],
    ["running", "running"],
    ["checkpointed", "running"],
    ["integrated", "integrated"],
    ["failed", "failed"],
    ["conflicted", "failed"],
    ["out_of_scope", "failed"],
    ["timed_out", "failed"],
    ["skipped", "skipped"],
    ["cancelled", "skipped"],
    ["tampered", "failed"],
  ])("gives a %s item the class %s", (status, cls) => {
    const graph = planGraph(withStatus(hugeMission(2), status));
    const classLine = graph.split("\n").find((l) => /^ {2}class .*\bn0\b/.test(l));
    expect(classLine?.split(" ").at(-1) ?? null).toBe(cls);
  });

  it("covers every item status", () => {
    expect(ITEM_STATUSES).toHaveLength(12);
  });

  it("keeps a hostile title inside its label", () => {
    const graph = planGraph(hostileMission());
    const lines = graph.split("\n");
    const nodes = lines.filter((l) => l.startsWith("  n") && l.includes("["));
    expect(nodes).toHaveLength(2);
    for (const node of nodes) expect(node).toMatch(/^ {2}n\d+\["[^"[\]`<>#;|{}]*"\]$/);
    expect(lines.filter((l) => /^\s*click\b/.test(l))).toEqual([]);
    expect(lines).toHaveLength(1 + 2 + 1 + 4);
    expect(graph).not.toContain("<img");
  });
});

describe("mermaidLabel", () => {
  it.each([
    ["Validate users (v2): input/output", "Validate users (v2): input/output"],
    ['a"]; click x href "javascript:alert(1)"', "a click x href javascript:alert(1)"],
    ["<b>bold</b> `tick` #35; {x} |y|", "b bold /b tick 35 x y"],
    ["Ünïcödé 名前", "Ünïcödé 名前"],
    ["line\nbreak", "line break"],
  ])("makes %j safe", (input, expected) => {
    expect(mermaidLabel(input)).toBe(expected);
  });

  it("cuts long labels", () => {
    expect(mermaidLabel("x".repeat(100))).toHaveLength(60);
  });
});

describe("mermaidBlock", () => {
  it("fences the graph", () => {
    expect(mermaidBlock(hugeMission(2))).toMatch(/^```mermaid\ngraph TD\n[\s\S]*\n```$/);
  });

  it("leaves out a graph too large for GitHub to draw", () => {
    expect(mermaidBlock(hugeMission(201))).toBe("_The graph of 201 items is too large to draw here (at most 200)._");
  });
});
