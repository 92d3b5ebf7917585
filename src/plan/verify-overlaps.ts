/**
 * The proof checker's own overlap computation, deliberately unlike the planner's trie: every
 * write becomes its key with components joined by NUL (which no normalized path contains), the
 * keys are sorted — so a path comes right before everything below it — and one sweep with a
 * stack of "the paths above this one" pairs each write with its ancestors and equals.
 */
import type { Plan } from "./types.ts";

interface Entry {
  readonly key: string;
  readonly item: number;
  readonly path: string;
}

/** Canonical overlapping path (display form) per conflicting pair, keyed `lo * n + hi`. */
export function sweepOverlaps(plan: Plan): Map<number, string> {
  const n = plan.items.length;
  const entries: Entry[] = [];
  plan.items.forEach((item, i) => {
    for (const write of item.writes) entries.push({ key: write.key.join("\0"), item: i, path: write.path });
  });
  // Equal keys by item, so that of two items writing the same path the lower one comes first.
  entries.sort((x, y) => (x.key === y.key ? x.item - y.item : x.key < y.key ? -1 : 1));

  const pairs = new Map<number, string>();
  const above: Entry[] = [];
  for (const entry of entries) {
    while (above.length > 0 && !isAncestorOrSelfKey(above[above.length - 1]!.key, entry.key)) above.pop();
    // Sorted keys: the first overlap met for a pair is the first in component order, and it is
    // this entry's path (the deeper one). Walking the stack from the top meets an equal path
    // of a lower item first, whose spelling is the canonical one.
    for (let k = above.length - 1; k >= 0; k--) {
      const other = above[k]!;
      if (other.item === entry.item) continue;
      const [lo, hi] = other.item < entry.item ? [other.item, entry.item] : [entry.item, other.item];
      const id = lo * n + hi;
      if (!pairs.has(id)) pairs.set(id, other.key === entry.key ? other.path : entry.path);
    }
    above.push(entry);
  }
  return pairs;
}

function isAncestorOrSelfKey(ancestor: string, key: string): boolean {
  // `key.startsWith(ancestor + "\0")`, without building that string for each of 50,000 writes.
  return ancestor === "" || key === ancestor || (key.charCodeAt(ancestor.length) === 0 && key.startsWith(ancestor));
}
