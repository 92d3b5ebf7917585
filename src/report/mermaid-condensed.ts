/**
 * The graph of a plan too large to draw item by item (issue 17): what a maintainer needs at a
 * glance is where the work stands, what failed, what runs, and how long the longest chain is.
 * Items are grouped by dependency layer (a layer's items wait only for earlier layers), the
 * layers cut into at most a dozen bands drawn as subgraphs in order, each with the count of its
 * items by status; failed and running items, and the critical path when it is short enough, are
 * drawn on their own inside their band. Its size is bounded whatever the plan.
 */
import { ITEM_STATUSES, type ItemStatus } from "../mission/index.ts";
import { dependencyLayers, longestPath, transitiveReduction } from "../plan/index.ts";
import { STATUS_MARK } from "./format.ts";
import { itemLabel } from "./mermaid-label.ts";
import { CLASS_OF, classLines, depsOf, type GraphItem, type NodeClass } from "./mermaid-parts.ts";

/** Items drawn on their own, at most. */
const MAX_DRAWN = 24;
/** Bands of layers, at most. */
const MAX_BANDS = 12;

const URGENCY: readonly (NodeClass | null)[] = ["failed", "running", "skipped", null, "integrated"];

/**
 * The condensed graph and a one-line note that says what it shows. Node ids: `n<position>` for
 * an item drawn on its own (as in the full graph), `g<band>` for a band's other items,
 * `s<band>` for the band.
 */
export function condensedGraphOf(items: readonly GraphItem[]): { source: string; note: string } {
  const { deps, declared } = depsOf(items);
  const reduced = transitiveReduction(deps);
  const layer = dependencyLayers(reduced);
  const layers = Math.max(...layer) + 1;
  const bands = Math.min(layers, MAX_BANDS);
  const bandOf = (i: number) => Math.floor((layer[i]! * bands) / layers);

  const critical = longestPath(reduced);
  const urgent = items
    .flatMap((item, i) => (CLASS_OF[item.status] === "failed" ? [i] : []))
    .concat(items.flatMap((item, i) => (CLASS_OF[item.status] === "running" ? [i] : [])))
    .slice(0, MAX_DRAWN);
  const drawn = new Set(urgent);
  const withPath = critical.filter((i) => !drawn.has(i));
  const pathDrawn = drawn.size + withPath.length <= MAX_DRAWN;
  if (pathDrawn) for (const i of withPath) drawn.add(i);

  const lines = ["graph TD"];
  const groups: [string, ItemStatus][] = [];
  for (let b = 0; b < bands; b++) {
    const members = items.map((_, i) => i).filter((i) => bandOf(i) === b);
    const first = Math.min(...members.map((i) => layer[i]!)) + 1;
    const last = Math.max(...members.map((i) => layer[i]!)) + 1;
    const span = first === last ? `layer ${first}` : `layers ${first}–${last}`;
    lines.push(`  subgraph s${b}["${span} · ${count(members.length)}"]`);
    for (const i of members) if (drawn.has(i)) lines.push(`    n${i}["${itemLabel(items[i]!)}"]`);
    const rest = members.filter((i) => !drawn.has(i)).map((i) => items[i]!.status);
    if (rest.length > 0) {
      lines.push(`    g${b}["${rest.length === members.length ? "" : `${rest.length} more · `}${tally(rest)}"]`);
      groups.push([`g${b}`, mostUrgent(rest)]);
    }
    lines.push("  end");
  }
  for (let b = 0; b + 1 < bands; b++) lines.push(`  s${b} --> s${b + 1}`);
  reduced.forEach((list, to) => {
    if (!drawn.has(to)) return;
    for (const from of list) {
      if (drawn.has(from)) lines.push(declared[to]!.has(from) ? `  n${from} --> n${to}` : `  n${from} -.->|ordered| n${to}`);
    }
  });
  lines.push(...classLines([...[...drawn].sort((a, b) => a - b).map((i): [string, ItemStatus] => [`n${i}`, items[i]!.status]), ...groups]));

  const shown = [urgent.length === 0 ? "" : "failed and running items", pathDrawn ? `the critical path (${count(critical.length)})` : ""].filter(
    (s) => s !== "",
  );
  const path = pathDrawn ? "" : ` The critical path is ${count(critical.length)} long.`;
  const note = `_${count(items.length)} in ${layers === 1 ? "1 dependency layer" : `${layers} dependency layers`}, condensed: counts by status per layer${shown.length === 0 ? "" : `; ${shown.join(" and ")} drawn on their own`}.${path}_`;
  return { source: lines.join("\n"), note };
}

/** Done first, then under way, then waiting, then what ended otherwise: "✅ 30 integrated · ⏳ 7 pending". */
const TALLY_ORDER: readonly ItemStatus[] = [
  "integrated",
  "checkpointed",
  "running",
  "ready",
  "pending",
  ...ITEM_STATUSES.filter((s) => !["integrated", "checkpointed", "running", "ready", "pending"].includes(s)),
];

function tally(statuses: readonly ItemStatus[]): string {
  return TALLY_ORDER.flatMap((s) => {
    const n = statuses.filter((x) => x === s).length;
    return n === 0 ? [] : [`${STATUS_MARK[s]} ${n} ${s.replace("_", " ")}`];
  }).join(" · ");
}

/** The status whose colour a group takes: a failure shows through a band of successes. */
function mostUrgent(statuses: readonly ItemStatus[]): ItemStatus {
  for (const cls of URGENCY) {
    const found = statuses.find((s) => CLASS_OF[s] === cls);
    if (found) return found;
  }
  return statuses[0] ?? "pending";
}

function count(n: number): string {
  return n === 1 ? "1 item" : `${n} items`;
}
