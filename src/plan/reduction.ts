/**
 * The transitive reduction of the plan's graph, for drawing it (issue 17): an edge that a longer
 * path already implies says nothing a reader needs, and the ordering edges the planner adds for
 * one shared path form a clique (n items, n(n−1)/2 edges) whose reduction is a chain (n − 1).
 * `added_after` and the proof keep every edge (docs/architecture.md): this only decides what is drawn.
 */
import { stableTopoOrder } from "./graph.ts";

/**
 * Per item, the positions of the dependencies that no other dependency already implies, in
 * the order given. `deps[i]` are the positions item `i` waits for; the graph must be acyclic
 * (a plan that passed its check), and duplicates are drawn once.
 *
 * Ancestor sets are bitsets filled in topological order, each dependency tried latest first: a
 * dependency that some later one already reaches is implied. Memory is n²/8 bytes (10,000 items:
 * 12.5 MB), time O(edges · n/32).
 *
 * @example transitiveReduction([[], [0], [0, 1]]) → [[], [0], [1]]
 */
export function transitiveReduction(deps: readonly (readonly number[])[]): number[][] {
  const n = deps.length;
  const topo = stableTopoOrder(deps);
  if (topo.length < n) throw new RangeError("transitiveReduction: the graph has a cycle");
  const rank = new Int32Array(n);
  topo.forEach((v, k) => (rank[v] = k));
  const words = (n + 31) >>> 5;
  const ancestors = new Uint32Array(n * words);
  const kept: number[][] = deps.map(() => []);
  for (const v of topo) {
    const row = v * words;
    const latestFirst = [...new Set(deps[v] ?? [])].sort((a, b) => rank[b]! - rank[a]!);
    const keep = new Set<number>();
    for (const d of latestFirst) {
      // A dependency tried later ranks earlier, so it can only be implied by one kept before it.
      if ((ancestors[row + (d >>> 5)]! & (1 << (d & 31))) !== 0) continue;
      keep.add(d);
      ancestors[row + (d >>> 5)]! |= 1 << (d & 31);
      for (let w = 0; w < words; w++) ancestors[row + w]! |= ancestors[d * words + w]!;
    }
    kept[v] = [...new Set(deps[v] ?? [])].filter((d) => keep.has(d));
  }
  return kept;
}

/**
 * The dependency layer of each item: 0 for an item that waits for nothing, else one more than
 * its deepest dependency. Every edge goes from a lower layer to a higher one, and the layers of a
 * longest path are 0, 1, 2, … without a gap.
 */
export function dependencyLayers(deps: readonly (readonly number[])[]): Int32Array {
  const layer = new Int32Array(deps.length);
  for (const v of stableTopoOrder(deps)) {
    for (const d of deps[v] ?? []) layer[v] = Math.max(layer[v]!, layer[d]! + 1);
  }
  return layer;
}

/**
 * One longest path (by number of items) through the graph, from its first item to its last:
 * the critical path when every item takes the same time. Ties go to the earliest position.
 */
export function longestPath(deps: readonly (readonly number[])[]): number[] {
  const layer = dependencyLayers(deps);
  let end = -1;
  layer.forEach((l, v) => {
    if (end < 0 || l > layer[end]!) end = v;
  });
  const path: number[] = [];
  for (let v = end; v >= 0; ) {
    path.push(v);
    const want = layer[v]! - 1;
    v = want < 0 ? -1 : Math.min(...(deps[v] ?? []).filter((d) => layer[d] === want));
  }
  return path.reverse();
}
