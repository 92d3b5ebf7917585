// @vitest-environment jsdom
/**
 * Issue 17: everything naruto posts or prints, for plans small and large, hostile and in every
 * script (render-scenarios.fixture.ts), as GitHub would take it: each comment within GitHub's
 * limit with its verdict line and closed fences, each ```mermaid block accepted by the real
 * `mermaid` parser (on jsdom) within Mermaid's limits, each node label its item's title, and no
 * user text turned into markdown structure. Structure is read with `marked` (GFM; the lexer
 * Mermaid itself ships), not GitHub's cmark-gfm. github-render.svg.test.ts renders the graphs.
 */
import { marked, type Token } from "marked";
import type mermaidApi from "mermaid";
import { beforeAll, describe, expect, it } from "vitest";
import { COMMENT_LIMIT } from "./fit.ts";
import { fenceLines, loadMermaid, MERMAID_MAX_TEXT, mermaidBlocks, renderAll, SCENARIOS, shownText, titlesOf } from "./render-scenarios.fixture.ts";

function blockTokens(text: string): Token[] {
  return marked.lexer(text, { gfm: true });
}

let mermaid: typeof mermaidApi;
beforeAll(async () => {
  mermaid = await loadMermaid();
});

describe.each(SCENARIOS)("$name", (scenario) => {
  const rendered = renderAll(scenario);
  const titles = titlesOf(scenario);

  it.each(rendered.map((r) => [r.name, r]))("%s fits GitHub, keeps its verdict line and closes every fence", (_name, r) => {
    expect(r.text.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(r.text).toMatch(r.verdict);
    expect(fenceLines(r.text) % 2).toBe(0);
    expect(mermaidBlocks(r.text)).toHaveLength(r.name === "verdict comment" ? 0 : 1);
  });

  it.each(rendered.map((r) => [r.name, r]))("%s: Mermaid parses the graph, within its limits, each label its title", async (_name, r) => {
    for (const source of mermaidBlocks(r.text)) {
      expect(source.length).toBeLessThanOrEqual(MERMAID_MAX_TEXT);
      // Parsed, and no title set a directive (`%%{init: …}%%` anywhere in the text would).
      const parsed0 = await mermaid.parse(source);
      expect(parsed0?.config).toEqual({});
      const diagram = await mermaid.mermaidAPI.getDiagramFromText(source);
      const db = diagram.db as { getVertices(): Map<string, { id: string; text?: string }>; getEdges(): unknown[] };
      expect(db.getEdges().length).toBeLessThanOrEqual(Math.max(scenario.items.length, 20));
      const parsed = [...db.getVertices().values()].filter((v) => /^n\d+$/.test(v.id)); // group nodes carry counts
      expect(parsed.length).toBeGreaterThan(0);
      for (const vertex of parsed) {
        const text = shownText(vertex.text ?? "");
        const id = /^([a-z0-9][a-z0-9._-]*): /.exec(text)?.[1] ?? "";
        expect(titles.has(id), text).toBe(true);
        expect(text).toBe(`${id}: ${titles.get(id)}`);
      }
    }
  });

  it("user text becomes no markdown structure in the comments", () => {
    for (const r of rendered.slice(0, 3)) {
      const tokens = blockTokens(r.text);
      expect(
        tokens.filter((t) => t.type === "hr"),
        r.name,
      ).toEqual([]);
      const headings = tokens.filter((t) => t.type === "heading").map((t) => (t as { text: string }).text);
      for (const h of headings) expect(h, r.name).toMatch(/^(naruto|✋ naruto verdict|Request|Verdict|Items|No-overlap proof|Queue|Containment|Cost|Graph)/);
      // The only list is the checklist: the request and the summary (`- …`, `1. …`) stay text.
      for (const list of tokens.filter((t) => t.type === "list")) {
        for (const entry of (list as { items: { task: boolean }[] }).items) expect(entry.task, r.name).toBe(true);
      }
      // A ref name sits in a code span; `\|` belongs in table cells only, where GFM reads it as `|`.
      for (const line of r.text.split("\n").filter((l) => !l.startsWith("|"))) expect(line, r.name).not.toMatch(/`[^`]*\\\|[^`]*`/);
      for (const quote of tokens.filter((t) => t.type === "blockquote")) {
        const inside = (quote as { tokens: Token[] }).tokens.map((t) => t.type);
        expect(
          inside.filter((k) => k !== "paragraph" && k !== "space"),
          r.name,
        ).toEqual([]);
      }
    }
  });
});
