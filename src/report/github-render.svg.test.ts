// @vitest-environment jsdom
/**
 * Issue 17: every graph naruto draws for the cases of render-scenarios.fixture.ts, rendered to
 * SVG by the real `mermaid` package on jsdom: no error diagram, and each item's node shows exactly
 * its title. Slow (a 256-item graph is laid out twice), so it runs with the slow suites.
 */
import type mermaidApi from "mermaid";
import { beforeAll, describe, expect, it } from "vitest";
import { loadMermaid, mermaidBlocks, renderAll, renderedLabels, SCENARIOS, titlesOf } from "./render-scenarios.fixture.ts";

let mermaid: typeof mermaidApi;
let renders = 0;
beforeAll(async () => {
  mermaid = await loadMermaid();
});

describe.each(SCENARIOS)("$name", (scenario) => {
  const titles = titlesOf(scenario);
  const graphs = renderAll(scenario).flatMap((r) => mermaidBlocks(r.text).map((source) => [r.name, source] as const));

  it.each(graphs)("%s: the graph renders, each item's node showing its title", async (_name, source) => {
    const { svg } = await mermaid.render(`g${renders++}`, source);
    expect(svg).not.toMatch(/Syntax error in text|Maximum text size in diagram exceeded|Edge limit exceeded/);
    const shown = renderedLabels(svg);
    const drawn = [...source.matchAll(/^ +(n\d+)\["/gm)].map((m) => m[1]!);
    expect([...shown.keys()].sort()).toEqual([...drawn].sort());
    for (const text of shown.values()) {
      const id = /^([a-z0-9][a-z0-9._-]*): /.exec(text)?.[1] ?? "";
      expect(titles.has(id), text).toBe(true);
      expect(text).toBe(`${id}: ${titles.get(id)}`);
    }
  });
});
