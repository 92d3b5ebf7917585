import { describe, expect, it } from "vitest";
import type { Mission } from "../mission/index.ts";
import { ITEM_STATUSES, type ItemStatus } from "../mission/index.ts";
import { condensedGraphOf } from "./mermaid-condensed.ts";
import { mermaidBlock, mermaidLabel, planGraph, planGraphOf } from "./mermaid.ts";
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

  it("keeps a hostile title inside its label, escaped, not deleted", () => {
    const graph = planGraph(hostileMission());
    const lines = graph.split("\n");
    const nodes = lines.filter((l) => l.startsWith("  n") && l.includes("["));
    expect(nodes).toHaveLength(2);
    for (const node of nodes) {
      const label = /^ {2}n\d+\["([^"]*)"\]$/.exec(node)?.[1];
      expect(label, node).toBeDefined();
      // Nothing Mermaid or HTML reads is left bare; every `#` starts one of naruto's entity codes.
      expect(label).not.toMatch(/[<>`%:&]/);
      expect(label!.replace(/#(?:quot|lt|gt|amp|\d+);/g, "")).not.toContain("#");
    }
    expect(nodes[0]).toContain("click n0 href #quot;javascript#58;alert(1)#quot;");
    expect(lines.filter((l) => /^\s*click\b/.test(l))).toEqual([]);
    expect(lines).toHaveLength(1 + 2 + 1 + 4);
  });

  it("draws the ordering of one shared path as a chain, not every pair", () => {
    const items = Array.from({ length: 64 }, (_, i) => ({
      id: `s-${i}`,
      title: `Part ${i}`,
      after: [],
      added_after: Array.from({ length: i }, (_, j) => `s-${j}`),
      status: "pending" as const,
    }));
    const edges = planGraphOf(items)
      .split("\n")
      .filter((l) => l.includes("->"));
    expect(edges).toEqual(Array.from({ length: 63 }, (_, i) => `  n${i} -.->|ordered| n${i + 1}`));
  });

  it("leaves out a declared edge that a longer path implies", () => {
    const items = [
      { id: "a", title: "A", after: [], added_after: [], status: "pending" as const },
      { id: "b", title: "B", after: ["a"], added_after: [], status: "pending" as const },
      { id: "c", title: "C", after: ["a", "b"], added_after: [], status: "pending" as const },
    ];
    expect(
      planGraphOf(items)
        .split("\n")
        .filter((l) => l.includes("->")),
    ).toEqual(["  n0 --> n1", "  n1 --> n2"]);
  });
});

describe("mermaidLabel", () => {
  it.each([
    ["Validate users (v2): input/output", "Validate users (v2)#58; input/output"],
    ['a"]; click x href "javascript:alert(1)"', "a#quot;]; click x href #quot;javascript#58;alert(1)#quot;"],
    ["<b>bold</b> `tick` #35; {x} |y| 100% & more", "#lt;b#gt;bold#lt;/b#gt; #96;tick#96; #35;35; {x} |y| 100#37; #amp; more"],
    ["%%{init: {'theme':'dark'}}%%", "#37;#37;{init#58; {'theme'#58;'dark'}}#37;#37;"],
    ["Ünïcödé 名前", "Ünïcödé 名前"],
    ["नमस्ते दुनिया", "नमस्ते दुनिया"],
    ["مَرْحَبًا", "مَرْحَبًا"],
    ["สวัสดีครับ", "สวัสดีครับ"],
    ["cafe\u0301", "caf\u00e9"],
    ["👩‍💻 ship 🇯🇵 👍🏽", "👩‍💻 ship 🇯🇵 👍🏽"],
    ["line\nbreak", "line break"],
    ["hidden\u202e\u200b text", "hidden text"],
  ])("keeps %j, escaped", (input, expected) => {
    expect(mermaidLabel(input)).toBe(expected);
  });

  it("cuts long labels at a whole character", () => {
    expect(mermaidLabel("x".repeat(200))).toBe(`${"x".repeat(79)}…`);
    expect(mermaidLabel("e\u0301".repeat(200))).toBe(`${"é".repeat(79)}…`);
    expect(mermaidLabel("👩‍💻".repeat(200), 3)).toBe("👩‍💻👩‍💻…");
  });
});

describe("mermaidBlock", () => {
  it("fences the graph", () => {
    expect(mermaidBlock(hugeMission(2))).toMatch(/^```mermaid\ngraph TD\n[\s\S]*\n```$/);
  });

  it("condenses a graph over the item threshold, or one Mermaid would refuse", () => {
    expect(mermaidBlock(hugeMission(31), { maxItems: 30 })).toMatch(
      /^_31 items in 31 dependency layers, condensed: [^\n]*_\n\n```mermaid\ngraph TD\n[\s\S]*\n```$/,
    );
    expect(mermaidBlock(hugeMission(30), { maxItems: 30 })).toMatch(/^```mermaid/);
    const large = mermaidBlock(hugeMission(600));
    expect(large).toMatch(/^_600 items in 600 dependency layers, condensed/);
    expect(large.length).toBeLessThan(10_000);
  });
});

describe("condensedGraphOf", () => {
  it("draws failed and running items and the short critical path, and counts the rest per band of layers", () => {
    const items = Array.from({ length: 100 }, (_, i) => ({
      id: `p-${i}`,
      title: `Part ${i}`,
      after: i >= 10 ? [`p-${i - 10}`] : [],
      added_after: [],
      status: i < 20 ? ("integrated" as const) : i === 25 ? ("failed" as const) : i === 30 ? ("running" as const) : ("pending" as const),
    }));
    const { source, note } = condensedGraphOf(items);
    expect(source).toMatchSnapshot();
    expect(note).toBe(
      "_100 items in 10 dependency layers, condensed: counts by status per layer; failed and running items and the critical path (10 items) drawn on their own._",
    );
  });
});
