/**
 * Conflicting pairs of write sets (docs/architecture.md), found with a trie over path components.
 *
 * Every write goes into the trie at the node of its key. A depth-first walk keeps the owners of
 * the nodes above it: an owner of the current node overlaps exactly those (a path overlaps its
 * ancestors and is reached from its descendants). The cost is the total path length plus the
 * number of overlapping (write, write) pairs, never all pairs of items.
 */
import type { RepoPath } from "./paths.ts";

/** Items `a` < `b` (plan positions) whose writes overlap at `path`. */
export interface WriteConflict {
  readonly a: number;
  readonly b: number;
  /**
   * The canonical overlapping path: of all overlaps of a write of `a` with a write of `b` (each
   * the deeper of the two paths), the first in component order (a parent before its children,
   * siblings by key). Spelled as `a` writes it when `a` has a write with that key, else as `b`.
   * A checker can recompute this choice exactly, so the path in a proof cannot be swapped.
   */
  readonly path: RepoPath;
}

interface TrieNode {
  // Allocated on first use: most nodes are leaves, or inner nodes nobody writes.
  children: Map<string, TrieNode> | null;
  /** Items writing exactly this path, each once (write sets are deduplicated by key). */
  owners: number[] | null;
  paths: RepoPath[] | null;
  /** How many different items write here or below: a subtree of one item holds no conflict. */
  items: number;
  /** The last item counted in `items`; items are inserted in plan order, each once per node. */
  lastItem: number;
}

const newNode = (): TrieNode => ({ children: null, owners: null, paths: null, items: 0, lastItem: -1 });

/**
 * Every conflicting pair, once, sorted by (a, b).
 *
 * @example findConflicts([[src/], [src/x.ts], [docs/]]) → [{ a: 0, b: 1, path: src/x.ts }]
 */
export function findConflicts(writeSets: readonly (readonly RepoPath[])[]): WriteConflict[] {
  const root = newNode();
  for (let item = 0; item < writeSets.length; item++) {
    for (const path of writeSets[item]!) {
      let node = root;
      for (const component of path.key) {
        count(node, item);
        node.children ??= new Map();
        let child = node.children.get(component);
        if (child === undefined) node.children.set(component, (child = newNode()));
        node = child;
      }
      count(node, item);
      // Literals, not `[]` and push: an empty array grows to 17 slots on its first push, and
      // there is one pair of these per written path.
      if (node.owners === null || node.paths === null) {
        node.owners = [item];
        node.paths = [path];
      } else {
        node.owners.push(item);
        node.paths.push(path);
      }
    }
  }

  const n = writeSets.length;
  const found = new Map<number, WriteConflict>();
  const active: number[] = []; // owners of the nodes on the way down, outermost first
  // Children in sorted order: the walk meets the nodes in component order, so the first node
  // where a pair is found is its canonical path.
  const stack: { node: TrieNode; children: TrieNode[]; next: number }[] = [];
  const enter = (node: TrieNode) => {
    visit(node, active, found, n);
    // Most nodes are leaves: done as soon as visited, without a frame.
    if (node.children === null) active.length -= node.owners?.length ?? 0;
    else stack.push({ node, children: childrenToWalk(node.children, active.length === 0), next: 0 });
  };
  enter(root);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const child = top.children[top.next++];
    if (child !== undefined) enter(child);
    else {
      stack.pop();
      active.length -= top.node.owners?.length ?? 0;
    }
  }
  return [...found.values()].sort((x, y) => x.a - y.a || x.b - y.b);
}

function count(node: TrieNode, item: number): void {
  if (node.lastItem === item) return;
  node.lastItem = item;
  node.items++;
}

/**
 * The children to walk, sorted by key. With no owner above them, a child written by one item
 * only can pair nothing, and is left out: in a real tree most subtrees are one item's own
 * files, and the walk then costs about the number of shared nodes, not all nodes.
 */
function childrenToWalk(children: Map<string, TrieNode>, nothingAbove: boolean): TrieNode[] {
  const keys: string[] = [];
  for (const [key, child] of children) if (!nothingAbove || child.items > 1) keys.push(key);
  if (keys.length > 1) keys.sort();
  return keys.map((k) => children.get(k)!);
}

/** Pairs each owner of `node` with the owners above it (and before it at this node). */
function visit(node: TrieNode, active: number[], found: Map<number, WriteConflict>, n: number): void {
  const owners = node.owners;
  const paths = node.paths;
  if (owners === null || paths === null) return;
  const here = owners.length > 1 ? new Map(owners.map((o, k) => [o, paths[k]!])) : null;
  for (let k = 0; k < owners.length; k++) {
    const owner = owners[k]!;
    for (const other of active) {
      if (other === owner) continue; // an item's own nested writes do not conflict
      const [a, b] = other < owner ? [other, owner] : [owner, other];
      const id = a * n + b;
      if (found.has(id)) continue;
      // This node is the deeper path of the two; spell it as `a` does if `a` writes it too.
      found.set(id, { a, b, path: here?.get(a) ?? paths[k]! });
    }
    active.push(owner);
  }
}
