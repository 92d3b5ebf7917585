/**
 * Graph algorithms of the planner over items by position: `deps[i]` are the positions item `i`
 * waits for (its `after`). Linear or near-linear, iterative (a 10,000-item chain must not
 * overflow the stack).
 */

/** Turns "waits for" lists into "is waited for by" lists, each sorted by position. */
export function dependentsOf(deps: readonly (readonly number[])[]): number[][] {
  const out: number[][] = deps.map(() => []);
  deps.forEach((list, i) => {
    for (const d of list) out[d]?.push(i);
  });
  // Pushed in increasing i already: each list is sorted.
  return out;
}

/**
 * Kahn's algorithm where, among the items that are free to go, the one earliest in the plan goes
 * first: the order is stable under edits elsewhere in the plan, and equals plan order when the
 * plan is already written in dependency order. Returns fewer than n positions on a cycle.
 */
export function stableTopoOrder(deps: readonly (readonly number[])[]): number[] {
  const dependents = dependentsOf(deps);
  const waiting = deps.map((list) => list.length);
  const heap = new MinHeap();
  waiting.forEach((w, i) => {
    if (w === 0) heap.push(i);
  });
  const order: number[] = [];
  while (heap.size > 0) {
    const i = heap.pop();
    order.push(i);
    for (const j of dependents[i] ?? []) {
      const left = (waiting[j] ?? 0) - 1;
      waiting[j] = left;
      if (left === 0) heap.push(j);
    }
  }
  return order;
}

/**
 * One cycle per strongly connected component with more than one item (self-edges are reported
 * elsewhere): the shortest cycle through the component's earliest item, as positions
 * `[a, b, c]` meaning a waits for b, b for c, c for a. Components found with Tarjan's algorithm.
 */
export function findCycles(deps: readonly (readonly number[])[]): number[][] {
  const cycles: number[][] = [];
  for (const component of cyclicComponents(deps)) {
    const start = Math.min(...component);
    cycles.push(shortestCycle(deps, start, new Set(component)));
  }
  return cycles.sort((x, y) => (x[0] ?? 0) - (y[0] ?? 0));
}

function shortestCycle(deps: readonly (readonly number[])[], start: number, inside: Set<number>): number[] {
  // Breadth-first from start; the first edge back to start closes the shortest cycle.
  const parent = new Map<number, number>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head] ?? start;
    for (const w of deps[v] ?? []) {
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(parent.get(path[0] ?? start) ?? start);
        return path;
      }
      if (inside.has(w) && !parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start]; // unreachable for a component of two or more
}

/**
 * Tarjan's strongly connected components with more than one item, with an explicit stack.
 * The work stack holds positions and `edge` each one's next edge to follow, in typed arrays:
 * a valid plan is one component per item, and none of them needs an array of its own.
 */
function cyclicComponents(deps: readonly (readonly number[])[]): number[][] {
  const n = deps.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const edge = new Int32Array(n);
  const work = new Int32Array(n);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    let depth = 0;
    work[depth++] = root;
    while (depth > 0) {
      const v = work[depth - 1]!;
      if (edge[v] === 0) {
        index[v] = low[v] = counter++;
        stack.push(v);
        onStack[v] = 1;
      }
      const next = deps[v]?.[edge[v]!];
      if (next !== undefined) {
        edge[v]!++;
        if (index[next] === -1) work[depth++] = next;
        else if (onStack[next]) low[v] = Math.min(low[v]!, index[next]!);
        continue;
      }
      depth--;
      if (depth > 0) {
        const parent = work[depth - 1]!;
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] === index[v]) {
        if (stack[stack.length - 1] === v) {
          stack.pop();
          onStack[v] = 0;
          continue;
        }
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component.push(w);
        } while (w !== v);
        components.push(component);
      }
    }
  }
  return components;
}

/** A binary min-heap of positions. */
class MinHeap {
  private readonly items: number[] = [];
  get size(): number {
    return this.items.length;
  }
  push(value: number): void {
    const a = this.items;
    a.push(value);
    let i = a.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (a[up]! <= value) break;
      a[i] = a[up]!;
      i = up;
    }
    a[i] = value;
  }
  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && a[r]! < a[l]! ? r : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}
