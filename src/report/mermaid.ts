/**
 * The plan as a Mermaid `graph TD` (GitHub renders Mermaid in comments), nodes coloured by
 * status. Titles come from plans that may come from comments: a label keeps only characters that
 * cannot end it or start Mermaid syntax, and node ids are naruto's own (`n0`, `n1`, …).
 */
import type { Mission, MissionItem } from "../mission/document.ts";
import type { ItemStatus } from "../mission/status.ts";
import { truncate } from "./escape.ts";
import { redactFormats } from "../redact/formats.ts";

/** Items above which a graph is left out: GitHub's Mermaid refuses large graphs. */
export const MERMAID_MAX_ITEMS = 200;

type NodeClass = "integrated" | "running" | "failed" | "skipped";

const CLASS_OF: Readonly<Record<ItemStatus, NodeClass | null>> = {
  pending: null,
  ready: null,
  running: "running",
  checkpointed: "running",
  integrated: "integrated",
  failed: "failed",
  conflicted: "failed",
  out_of_scope: "failed",
  timed_out: "failed",
  skipped: "skipped",
  cancelled: "skipped",
  tampered: "failed",
};

const CLASS_DEF: Readonly<Record<NodeClass, string>> = {
  integrated: "fill:#dafbe1,stroke:#1a7f37,color:#0d3a1b",
  running: "fill:#ddf4ff,stroke:#0969da,color:#0a3069",
  failed: "fill:#ffebe9,stroke:#cf222e,color:#82071e",
  skipped: "fill:#eaeef2,stroke:#8c959f,color:#57606a",
};

/**
 * The Mermaid source of the plan: declared edges solid, edges the planner added dotted and
 * labelled `ordered`, each edge from a dependency to its dependent.
 *
 * @example planGraph(mission) → 'graph TD\n  n0["a: Work on a"]\n  …\n  n0 --> n1\n  classDef …'
 */
export function planGraph(mission: Mission): string {
  return planGraphOf(mission.items);
}

/** What the graph needs of an item: a plan's items (all `pending`) can be drawn before a mission. */
export type GraphItem = Pick<MissionItem, "id" | "title" | "after" | "added_after" | "status">;

/** {@link planGraph} for bare items, e.g. a plan checked by `naruto plan`. */
export function planGraphOf(items: readonly GraphItem[]): string {
  const lines = ["graph TD"];
  const node = new Map(items.map((item, i) => [item.id, `n${i}`]));
  for (const [i, item] of items.entries()) {
    const title = mermaidLabel(item.title);
    const id = mermaidLabel(item.id) || "item";
    lines.push(`  n${i}["${title === "" ? id : `${id}: ${title}`}"]`);
  }
  for (const item of items) {
    const to = node.get(item.id);
    for (const dep of item.after) {
      const from = node.get(dep);
      if (from && to) lines.push(`  ${from} --> ${to}`);
    }
    for (const dep of item.added_after) {
      const from = node.get(dep);
      if (from && to) lines.push(`  ${from} -.->|ordered| ${to}`);
    }
  }
  const members = new Map<NodeClass, string[]>();
  for (const [i, item] of items.entries()) {
    const cls = CLASS_OF[item.status];
    if (cls) members.set(cls, [...(members.get(cls) ?? []), `n${i}`]);
  }
  for (const [cls, ids] of members) {
    lines.push(`  classDef ${cls} ${CLASS_DEF[cls]}`);
    lines.push(`  class ${ids.join(",")} ${cls}`);
  }
  return lines.join("\n");
}

/** The graph in a fenced `mermaid` block, or a note when the plan is too large to draw. */
export function mermaidBlock(mission: Mission): string {
  if (mission.items.length === 0) return "_No plan yet._";
  if (mission.items.length > MERMAID_MAX_ITEMS) {
    return `_The graph of ${mission.items.length} items is too large to draw here (at most ${MERMAID_MAX_ITEMS})._`;
  }
  return `\`\`\`mermaid\n${planGraph(mission)}\n\`\`\``;
}

/**
 * A node label: letters, digits, spaces and a few harmless marks. Quotes, brackets, braces,
 * `#` (Mermaid's entity codes), `;`, `|`, `<`, `>` and backticks become spaces, so a hostile title
 * can neither close the label nor add HTML, links or `click` handlers.
 */
export function mermaidLabel(text: string, max = 60): string {
  const safe = redactFormats(text).replace(/[^\p{L}\p{N} .,:_/+=?!'()-]/gu, " ").replace(/\s+/g, " ").trim();
  return truncate(safe, max);
}
