/**
 * The proof checker's own overlap computation, deliberately unlike the planner's trie: every
 * write becomes its key with components joined by NUL (which no normalized path contains), the
 * keys are sorted — so a path comes right before everything below it — and one sweep with a
 * stack of "the paths above this one" pairs each write with its ancestors and equals.
 */
import type { Plan } from "./types.ts";

/** Canonical overlapping path (display form) per conflicting pair, keyed `lo * n + hi`. */
export function sweepOverlaps(plan: Plan): Map<number, string> {
  const n = plan.items.length;
  const entries: { key: string; item: number }[] = [];
  const spelling = new Map<string, string>(); // `${item}\n${key}` → the item's spelling
  plan.items.forEach((item, i) => {
    for (const write of item.writes) {
      const key = write.key.join("\0");
      entries.push({ key, item: i });
      if (!spelling.has(`${i}\n${key}`)) spelling.set(`${i}\n${key}`, write.path);
    }
  });
  entries.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : x.item - y.item));

  const pairs = new Map<number, string>();
  const above: { key: string; item: number }[] = [];
  for (const entry of entries) {
    while (above.length > 0 && !isAncestorOrSelfKey(above[above.length - 1]!.key, entry.key)) above.pop();
    for (const other of above) {
      if (other.item === entry.item) continue;
      const [lo, hi] = other.item < entry.item ? [other.item, entry.item] : [entry.item, other.item];
      const id = lo * n + hi;
      // Sorted keys: the first overlap met for a pair is the first in component order. It is
      // this entry's path (the deeper one), spelled as the lower item writes it if it does.
      if (!pairs.has(id)) pairs.set(id, spelling.get(`${lo}\n${entry.key}`) ?? spelling.get(`${hi}\n${entry.key}`) ?? "");
    }
    above.push(entry);
  }
  return pairs;
}

function isAncestorOrSelfKey(ancestor: string, key: string): boolean {
  return ancestor === "" || key === ancestor || key.startsWith(`${ancestor}\0`);
}
