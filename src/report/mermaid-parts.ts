/**
 * What the full and the condensed graph share: the items they draw, their edges by position, and
 * the status colours.
 */
import type { MissionItem } from "../mission/index.ts";
import type { ItemStatus } from "../mission/index.ts";

/** What a graph needs of an item: a plan's items (all `pending`) can be drawn before a mission. */
export type GraphItem = Pick<MissionItem, "id" | "title" | "after" | "added_after" | "status">;

export type NodeClass = "integrated" | "running" | "failed" | "skipped";

export const CLASS_OF: Readonly<Record<ItemStatus, NodeClass | null>> = {
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

export const CLASS_DEF: Readonly<Record<NodeClass, string>> = {
  integrated: "fill:#dafbe1,stroke:#1a7f37,color:#0d3a1b",
  running: "fill:#ddf4ff,stroke:#0969da,color:#0a3069",
  failed: "fill:#ffebe9,stroke:#cf222e,color:#82071e",
  skipped: "fill:#eaeef2,stroke:#8c959f,color:#57606a",
};

/** `classDef` and `class` lines colouring each node by its status; uncoloured ones are left out. */
export function classLines(nodes: readonly (readonly [string, ItemStatus])[]): string[] {
  const members = new Map<NodeClass, string[]>();
  for (const [id, status] of nodes) {
    const cls = CLASS_OF[status];
    if (cls) members.set(cls, [...(members.get(cls) ?? []), id]);
  }
  return [...members].flatMap(([cls, ids]) => [`  classDef ${cls} ${CLASS_DEF[cls]}`, `  class ${ids.join(",")} ${cls}`]);
}

/**
 * Each item's dependencies by position (declared and added, unknown ids left out), and which of
 * them are declared: a drawn edge is solid when the plan wrote it, dotted when the planner added it.
 */
export function depsOf(items: readonly GraphItem[]): { deps: number[][]; declared: Set<number>[] } {
  const position = new Map(items.map((item, i) => [item.id, i]));
  const find = (ids: readonly string[]) => ids.map((id) => position.get(id)).filter((p): p is number => p !== undefined);
  const declared = items.map((item) => new Set(find(item.after)));
  const deps = items.map((item, i) => [...new Set([...declared[i]!, ...find(item.added_after)])]);
  return { deps, declared };
}
