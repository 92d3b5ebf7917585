/**
 * Ordering conflicting items (docs/architecture.md). Two items that write an overlapping path must never
 * run at the same time: each conflicting pair is either ordered already by the plan's declared
 * `after` edges, or gets an added edge from the item earlier in the stable topological order to
 * the later one. Every added edge points forward in one fixed order, so none can close a cycle.
 */
import { dependentsOf, stableTopoOrder } from "./graph.ts";
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

  const found = findConflicts(items.map((item) => item.writes));
  // Orient each pair: `a` is the one earlier in the stable topological order.
  const as = new Int32Array(found.length);
  const bs = new Int32Array(found.length);
  found.forEach((c, k) => {
    const keep = rank[c.a]! < rank[c.b]!;
    as[k] = keep ? c.a : c.b;
    bs[k] = keep ? c.b : c.a;
  });
  const hops = declaredHops(deps, topo, as, bs);
  const addedAfter: number[][] = items.map(() => []);
  const strict = options.strict === true;
  const conflicts = found.map((c, k): OrderedConflict => {
    const [a, b, hop] = [as[k]!, bs[k]!, hops[k]!];
    if (hop >= 0) return { a, b, path: c.path, order: "declared", edge: { from: a, to: hop } };
    if (strict) return { a, b, path: c.path, order: "unordered", edge: null };
    addedAfter[b]!.push(a);
    return { a, b, path: c.path, order: "added", edge: { from: a, to: b } };
  });
  for (const list of addedAfter) if (list.length > 1) list.sort((x, y) => x - y);
  conflicts.sort((x, y) => x.a - y.a || x.b - y.b);
  return { topo, addedAfter, conflicts };
}

// Bits of reachability computed per pass; bounds memory at (items with dependents) × 1 KiB.
const CHUNK_BITS = 8192;

/**
 * For each pair `k` (as[k] before bs[k] in topo order), the first declared hop from a toward b,
 * or -1 when the declared edges do not order the pair. Reachability is a bitset transitive
 * closure computed in reverse topological order, kept only for items that something waits for
 * (no other item can reach anything) and only over the items some pair needs to reach; with
 * many of those it runs in chunks of `chunkBits`, so memory stays linear in the plan size.
 */
export function declaredHops(
  deps: readonly (readonly number[])[],
  topo: readonly number[],
  as: Int32Array,
  bs: Int32Array,
  chunkBits: number = CHUNK_BITS,
): Int32Array {
  const hops = new Int32Array(as.length).fill(-1);
  const n = deps.length;
  const dependents = dependentsOf(deps);
  const row = new Int32Array(n).fill(-1);
  let rows = 0;
  dependents.forEach((list, v) => {
    if (list.length > 0) row[v] = rows++;
  });
  const needed: number[] = [];
  as.forEach((a, k) => {
    if (row[a]! >= 0) needed.push(k);
  });
  if (needed.length === 0) return hops;
  const direct = new Set<number>();
  deps.forEach((list, i) => list.forEach((d) => direct.add(d * n + i)));
  const slot = new Int32Array(n).fill(-1);
  let targets = 0;
  for (const k of needed) if (slot[bs[k]!] === -1) slot[bs[k]!] = targets++;

  for (let base = 0; base < targets; base += chunkBits) {
    const width = Math.min(chunkBits, targets - base);
    const words = (width + 31) >>> 5;
    // bits[row[v]] holds the chunk's targets that wait, transitively, for v.
    const bits = new Uint32Array(rows * words);
    for (let t = topo.length - 1; t >= 0; t--) {
      const v = topo[t]!;
      const r = row[v]!;
      if (r < 0) continue;
      for (const d of dependents[v]!) {
        const s = slot[d]! - base;
        if (s >= 0 && s < width) bits[r * words + (s >>> 5)]! |= 1 << (s & 31);
        const rd = row[d]!;
        if (rd >= 0) for (let w = 0; w < words; w++) bits[r * words + w]! |= bits[rd * words + w]!;
      }
    }
    const waits = (v: number, s: number) => row[v]! >= 0 && (bits[row[v]! * words + (s >>> 5)]! & (1 << (s & 31))) !== 0;
    for (const k of needed) {
      const [a, b] = [as[k]!, bs[k]!];
      const s = slot[b]! - base;
      if (s < 0 || s >= width || !waits(a, s)) continue;
      hops[k] = direct.has(a * n + b) ? b : (dependents[a]!.find((d) => d === b || waits(d, s)) ?? -1);
    }
  }
  return hops;
}
