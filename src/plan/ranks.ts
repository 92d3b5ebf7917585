/**
 * Ranks for critical-path list scheduling (docs/architecture.md).
 *
 * These functions work on a generic {@link WorkNode}, not on a `PlanItem`, so that the scheduler,
 * the simulation and the benchmarks can use them on any graph: a plan maps its items to nodes with
 * `deps` = declared `after` + the planner's added edges.
 */

/** A node of a dependency graph. */
export interface GraphNode {
  readonly id: string;
  /** Ids this node waits for (declared and added `after` edges): all known, no cycle. */
  readonly deps: readonly string[];
}

/** What scheduling needs to know about one item of work. */
export interface WorkNode extends GraphNode {
  /** Estimated duration in units (1 unit = 1 minute); finite and at least 0. */
  readonly estimate: number;
}

/** A graph that breaks the {@link WorkNode} contract: duplicate or unknown id, cycle, bad number. */
export class WorkGraphError extends Error {
  override readonly name = "WorkGraphError";
  constructor(
    message: string,
    /** The node the problem was found at. */
    readonly id: string,
  ) {
    super(message);
  }
}

/** A graph by position (the nodes' order), for linear-time algorithms. */
export interface IndexedGraph {
  readonly index: ReadonlyMap<string, number>;
  /** Positions of each node's dependencies, without duplicates. */
  readonly deps: readonly (readonly number[])[];
  /** Positions of the nodes that depend on each node. */
  readonly dependents: readonly (readonly number[])[];
  /** Every position once, dependencies before dependents; among free nodes, in input order. */
  readonly order: readonly number[];
}

/**
 * Indexes a graph and orders it topologically (Kahn's algorithm), in O(V + E).
 * @throws {WorkGraphError} on a duplicate id, an unknown dependency or a cycle.
 */
export function indexGraph(nodes: readonly GraphNode[]): IndexedGraph {
  const index = new Map<string, number>();
  nodes.forEach((node, i) => {
    if (index.has(node.id)) throw new WorkGraphError(`duplicate id "${node.id}"`, node.id);
    index.set(node.id, i);
  });
  const deps: number[][] = [];
  const dependents: number[][] = nodes.map(() => []);
  for (const [i, node] of nodes.entries()) {
    // A plan may name the same dependency twice (declared and added); count it once.
    const unique = node.deps.length < 2 ? node.deps : [...new Set(node.deps)];
    const own = unique.map((dep) => {
      const j = index.get(dep);
      if (j === undefined) throw new WorkGraphError(`"${node.id}" depends on unknown "${dep}"`, node.id);
      dependents[j]?.push(i);
      return j;
    });
    deps.push(own);
  }
  const waiting = deps.map((d) => d.length);
  const order: number[] = [];
  for (let i = 0; i < nodes.length; i++) if (waiting[i] === 0) order.push(i);
  for (let head = 0; head < order.length; head++) {
    for (const j of dependents[order[head] ?? 0] ?? []) {
      const left = (waiting[j] ?? 0) - 1;
      waiting[j] = left;
      if (left === 0) order.push(j);
    }
  }
  if (order.length < nodes.length) {
    const stuck = waiting.findIndex((w) => w > 0);
    const id = nodes[stuck]?.id ?? "";
    throw new WorkGraphError(`"${id}" is on or behind a dependency cycle`, id);
  }
  return { index, deps, dependents, order };
}

/**
 * Ranks by position, with the estimates as weights; see {@link computeRanks}.
 * @throws {WorkGraphError} when an estimate is negative or not a number.
 */
export function ranksOf(nodes: readonly WorkNode[], graph: IndexedGraph): number[] {
  for (const node of nodes) {
    if (!Number.isFinite(node.estimate) || node.estimate < 0) {
      throw new WorkGraphError(`"${node.id}" has estimate ${node.estimate}; use a finite number >= 0`, node.id);
    }
  }
  return longestPaths(
    graph,
    nodes.map((node) => node.estimate),
  );
}

/**
 * For each position, its weight plus the heaviest path from it to the end of the graph. The
 * weights (by position) must be finite and at least 0. O(V + E).
 */
export function longestPaths(graph: IndexedGraph, weights: readonly number[]): number[] {
  const paths = new Array<number>(weights.length).fill(0);
  // Reverse topological order: every dependent is done before the node that it waits for.
  for (let k = graph.order.length - 1; k >= 0; k--) {
    const i = graph.order[k] ?? 0;
    let longest = 0;
    for (const j of graph.dependents[i] ?? []) longest = Math.max(longest, paths[j] ?? 0);
    paths[i] = (weights[i] ?? 0) + longest;
  }
  return paths;
}

/**
 * The rank of every node: its estimate plus the longest estimated path from it to the end of the
 * graph, `rank(i) = est(i) + max(rank(j) for j depending on i)`. Starting the highest rank first
 * is critical-path list scheduling. O(V + E).
 *
 * @example
 * computeRanks([{ id: "a", estimate: 2, deps: [] }, { id: "b", estimate: 3, deps: ["a"] }])
 * // Map { "a" => 5, "b" => 3 }
 * @throws {WorkGraphError} when the graph breaks the {@link WorkNode} contract.
 */
export function computeRanks(nodes: readonly WorkNode[]): Map<string, number> {
  const ranks = ranksOf(nodes, indexGraph(nodes));
  return new Map(nodes.map((node, i) => [node.id, ranks[i] ?? 0]));
}

/** The length of the longest estimated path through the graph (0 for no nodes). O(V + E). */
export function criticalPath(nodes: readonly WorkNode[]): number {
  return ranksOf(nodes, indexGraph(nodes)).reduce((a, b) => Math.max(a, b), 0);
}

/** The sum of all estimates: the time one agent would need for everything. */
export function totalWork(nodes: readonly WorkNode[]): number {
  return nodes.reduce((sum, node) => sum + node.estimate, 0);
}
