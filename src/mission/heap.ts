/**
 * A binary min-heap: what the simulation needs to pick the next event and the best ready item
 * in O(log n).
 */

/** A priority queue; `pop` returns the least element by the heap's order. */
export interface Heap<T> {
  readonly size: number;
  push(value: T): void;
  pop(): T | undefined;
  peek(): T | undefined;
}

/**
 * Creates an empty heap ordered by `before` (true when `a` must come out before `b`).
 * Equal elements come out in no particular order: make the order total for a deterministic result.
 *
 * @example
 * const heap = createHeap<number>((a, b) => a < b);
 * [3, 1, 2].forEach((n) => heap.push(n));
 * heap.pop(); // 1
 */
export function createHeap<T>(before: (a: T, b: T) => boolean): Heap<T> {
  const items: T[] = [];
  const swap = (i: number, j: number): void => {
    const t = items[i] as T;
    items[i] = items[j] as T;
    items[j] = t;
  };
  return {
    get size() {
      return items.length;
    },
    push(value) {
      items.push(value);
      let i = items.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!before(items[i] as T, items[parent] as T)) break;
        swap(i, parent);
        i = parent;
      }
    },
    pop() {
      const top = items[0];
      const last = items.pop();
      if (items.length === 0 || last === undefined) return top;
      items[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < items.length && before(items[left] as T, items[least] as T)) least = left;
        if (right < items.length && before(items[right] as T, items[least] as T)) least = right;
        if (least === i) return top;
        swap(i, least);
        i = least;
      }
    },
    peek() {
      return items[0];
    },
  };
}
