/**
 * Ordering conflicting items (DESIGN.md §4). Two items that write an overlapping path must never
 * run at the same time: each conflicting pair is either ordered already by the plan's declared
 * `after` edges, or gets an added edge from the item earlier in the stable topological order to
 * the later one. Every added edge points forward in one fixed order, so none can close a cycle.
 */
import { stableTopoOrder } from "./graph.ts";
import { findConflicts } from "./overlap.ts";
import type { RepoPath } from "./paths.ts";
import type { ConflictOrder, Plan } from "./types.ts";

/** A conflicting pair by plan position; `a` is ordered before `b`. */
export interface OrderedConflict {
  readonly a: number;
  readonly b: number;
  readonly path: RepoPath;
  readonly order: ConflictOrder;
  /**
   * The edge that orders the pair. `added`: the added edge a → b. `declared`: the first hop of a
   * declared path from a to b — the direct edge when `b` lists `a` in `after`, else the first
   * item (in plan order) that lists `a` in `after` and leads on to `b`. `unordered`: null.
   */
  readonly edge: { readonly from: number; readonly to: number } | null;
}

export interface PlanOrder {
  /** Plan positions in stable topological order of the declared edges. */
  readonly topo: readonly number[];
  /** Per item, the positions of the items the planner made it wait for, in plan order. */
  readonly addedAfter: readonly (readonly number[])[];
  /** Sorted by (a, b) plan position. */
  readonly conflicts: readonly OrderedConflict[];
}

export interface OrderOptions {
  /** Leave unordered conflicting pairs unordered (the plan is then not safe to run). */
  readonly strict?: boolean;
}

/** Orders every conflicting pair of a valid plan (ids unique, `after` known, no cycle). */
export function orderPlan(plan: Plan, options: OrderOptions = {}): PlanOrder {
  const items = plan.items;
  const position = new Map(items.map((item, i) => [item.id, i]));
  const deps = items.map((item) => item.after.map((id) => position.get(id) ?? -1).filter((i) => i >= 0));
  const topo = stableTopoOrder(deps);
  const rank = new Int32Array(items.length);
  topo.forEach((item, k) => (rank[item] = k));

  const pairs = findConflicts(items.map((item) => item.writes)).map((c) =>
    rank[c.a]! < rank[c.b]! ? c : { a: c.b, b: c.a, path: c.path },
  );
  const hops = declaredHops(deps, topo, pairs);
  const addedAfter: number[][] = items.map(() => []);
  const conflicts = pairs.map((pair, k): OrderedConflict => {
    const hop = hops[k] ?? -1;
    if (hop >= 0) return { ...pair, order: "declared", edge: { from: pair.a, to: hop } };
    if (options.strict === true) return { ...pair, order: "unordered", edge: null };
    addedAfter[pair.b]!.push(pair.a);
    return { ...pair, order: "added", edge: { from: pair.a, to: pair.b } };
  });
  for (const list of addedAfter) list.sort((x, y) => x - y);
  conflicts.sort((x, y) => x.a - y.a || x.b - y.b);
  return { topo, addedAfter, conflicts };
}

// Bits of reachability computed per pass; bounds memory at n × 1 KiB whatever the plan size.
const CHUNK_BITS = 8192;

/**
 * For each pair (a before b in topo order), the first declared hop from a toward b, or -1 when
 * the declared edges do not order the pair. Reachability is a bitset transitive closure over
 * the items that some pair needs to reach, computed in reverse topological order; with many such
 * items it runs in chunks so memory stays linear in the number of items.
 */
function declaredHops(deps: readonly (readonly number[])[], topo: readonly number[], pairs: readonly { a: number; b: number }[]): number[] {
  const hops = pairs.map(() => -1);
  const n = deps.length;
  const dependents: number[][] = deps.map(() => []);
  deps.forEach((list, i) => list.forEach((d) => dependents[d]!.push(i)));
  if (!dependents.some((list) => list.length > 0)) return hops;
  const direct = new Set<number>();
  deps.forEach((list, i) => list.forEach((d) => direct.add(d * n + i)));

  const targets = [...new Set(pairs.map((p) => p.b))];
  const slot = new Map(targets.map((t, k) => [t, k]));
  for (let base = 0; base < targets.length; base += CHUNK_BITS) {
    const width = Math.min(CHUNK_BITS, targets.length - base);
    const words = (width + 31) >>> 5;
    // rows[v] holds the chunk's targets that are v itself or wait, transitively, for v.
    const rows = new Uint32Array(n * words);
    for (let k = topo.length - 1; k >= 0; k--) {
      const v = topo[k]!;
      const own = (slot.get(v) ?? -1) - base;
      if (own >= 0 && own < width) rows[v * words + (own >>> 5)]! |= 1 << (own & 31);
      for (const d of dependents[v]!) {
        for (let w = 0; w < words; w++) rows[v * words + w]! |= rows[d * words + w]!;
      }
    }
    const has = (v: number, bit: number) => (rows[v * words + (bit >>> 5)]! & (1 << (bit & 31))) !== 0;
    pairs.forEach(({ a, b }, k) => {
      const bit = slot.get(b)! - base;
      if (bit < 0 || bit >= width || !has(a, bit)) return;
      hops[k] = direct.has(a * n + b) ? b : dependents[a]!.find((d) => has(d, bit)) ?? -1;
    });
  }
  return hops;
}
