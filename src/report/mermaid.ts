/**
 * The plan as a Mermaid `graph TD` (GitHub renders Mermaid in comments), nodes coloured by
 * status. Only the transitive reduction is drawn (issue 17): ordering edges the planner adds for
 * one shared path form a chain, not a clique, so a picture never grows faster than the items.
 * Node ids are naruto's own (`n0`, `n1`, …); titles are escaped by {@link itemLabel}.
 */
import type { Mission } from "../mission/index.ts";
import { transitiveReduction } from "../plan/index.ts";
import { condensedGraphOf } from "./mermaid-condensed.ts";
import { itemLabel } from "./mermaid-label.ts";
import { classLines, depsOf, type GraphItem } from "./mermaid-parts.ts";

export { mermaidLabel } from "./mermaid-label.ts";
export type { GraphItem } from "./mermaid-parts.ts";

/**
 * Mermaid 11's limits. `flowchart.maxEdges` (500): `FlowDB.addSingleLink` throws "Edge limit
 * exceeded" and the page shows an error box. `maxTextSize` (50,000): `mermaidAPI.render` draws
 * "Maximum text size in diagram exceeded" instead of the graph. Both are secure settings a
 * diagram cannot raise, and GitHub keeps the defaults.
 */
export const MERMAID_MAX_EDGES = 500;
export const MERMAID_MAX_TEXT = 50_000;

/**
 * Items up to which a comment draws every item: a taller graph is still read node by node at a
 * comment's 880 px, a wider one is scaled down until nothing is legible.
 */
export const COMMENT_GRAPH_ITEMS = 30;

/**
 * The Mermaid source of every item: declared edges solid, edges the planner added dotted and
 * labelled `ordered`, each edge from a dependency to its dependent, implied edges left out.
 *
 * @example planGraphOf(items) → 'graph TD\n  n0["a#58; Work on a"]\n  …\n  n0 --> n1\n  classDef …'
 */
export function planGraphOf(items: readonly GraphItem[]): string {
  return fullGraph(items).source;
}

/** {@link planGraphOf} for a mission's items. */
export function planGraph(mission: Mission): string {
  return planGraphOf(mission.items);
}

function fullGraph(items: readonly GraphItem[]): { source: string; edges: number } {
  const { deps, declared } = depsOf(items);
  const reduced = transitiveReduction(deps);
  const lines = ["graph TD"];
  items.forEach((item, i) => lines.push(`  n${i}["${itemLabel(item)}"]`));
  let edges = 0;
  reduced.forEach((list, to) => {
    for (const from of list) {
      edges++;
      lines.push(declared[to]!.has(from) ? `  n${from} --> n${to}` : `  n${from} -.->|ordered| n${to}`);
    }
  });
  lines.push(...classLines(items.map((item, i) => [`n${i}`, item.status])));
  return { source: lines.join("\n"), edges };
}

/**
 * The graph as markdown: a fenced `mermaid` block of every item when there are at most
 * `maxItems` (default: any number; 0: always condensed) and Mermaid accepts it, else a one-line
 * note and the condensed graph ({@link condensedGraphOf}). Never an error box, never an open fence.
 */
export function graphMarkdown(items: readonly GraphItem[], { maxItems = Infinity }: { readonly maxItems?: number } = {}): string {
  if (items.length === 0) return "_No plan yet._";
  if (items.length <= maxItems) {
    const full = fullGraph(items);
    if (full.edges <= MERMAID_MAX_EDGES && full.source.length <= MERMAID_MAX_TEXT) return fence(full.source);
  }
  const condensed = condensedGraphOf(items);
  return `${condensed.note}\n\n${fence(condensed.source)}`;
}

/** A mission's graph; see {@link graphMarkdown}. */
export function mermaidBlock(mission: Mission, options: { readonly maxItems?: number } = {}): string {
  return graphMarkdown(mission.items, options);
}

function fence(source: string): string {
  return `\`\`\`mermaid\n${source}\n\`\`\``;
}
