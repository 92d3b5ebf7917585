/**
 * A tree object read byte by byte and judged by git's fsck rules for trees (fsck.c `fsck_tree`):
 * every entry's mode and name, no name twice, entries in git's order, no null object id. Pure:
 * the bytes come from `git cat-file --batch` (src/gate/gate.ts).
 */
import { nameProblem, type NameBytes, type NameRule } from "./names.ts";

export interface RawTreeEntry {
  /** The mode exactly as written in the tree (git writes `40000` for a tree, never `040000`). */
  readonly mode: string;
  readonly name: NameBytes;
  /** Hex object id. */
  readonly oid: string;
}

export type ParsedTree =
  | { readonly ok: true; readonly entries: readonly RawTreeEntry[] }
  | { readonly ok: false; readonly detail: string; readonly entries: readonly RawTreeEntry[] };

/** The modes git writes: file, executable, symlink, tree, gitlink. */
export const TREE_MODE = "40000";
export const GITLINK_MODE = "160000";
export const SYMLINK_ENTRY_MODE = "120000";
const GOOD_MODES = new Set(["100644", "100755", SYMLINK_ENTRY_MODE, TREE_MODE, GITLINK_MODE]);

/**
 * Parses a tree object: `<octal mode> <name>\0<raw id>` repeated. A tree that does not parse
 * says where it stopped; the entries before that are returned too.
 *
 * @param idBytes 20 for SHA-1 repositories, 32 for SHA-256
 */
export function parseTree(content: Buffer, idBytes: number): ParsedTree {
  const entries: RawTreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    const nul = space === -1 ? -1 : content.indexOf(0, space + 1);
    if (space === -1 || nul === -1 || nul + 1 + idBytes > content.length) {
      return { ok: false, detail: `the tree is cut short after ${entries.length} entries`, entries };
    }
    const mode = content.subarray(at, space).toString("latin1");
    if (!/^[0-7]+$/.test(mode)) return { ok: false, detail: `a malformed mode ${JSON.stringify(mode)}`, entries };
    entries.push({ mode, name: Buffer.from(content.subarray(space + 1, nul)), oid: content.subarray(nul + 1, nul + 1 + idBytes).toString("hex") });
    at = nul + 1 + idBytes;
  }
  return { ok: true, entries };
}

export type TreeRule = NameRule | "bad_mode" | "duplicate_name" | "bad_tree";

export interface TreeProblem {
  /** The entry the problem is about. */
  readonly name: NameBytes;
  readonly rule: TreeRule;
  readonly detail: string;
}

/**
 * Every fsck problem of one tree's entries (a tree may have several; each is named).
 *
 * @example treeProblems([{ mode: "100644", name: Buffer.from(".."), oid }]) → [{ name: "..", rule: "bad_name", … }]
 */
export function treeProblems(entries: readonly RawTreeEntry[]): TreeProblem[] {
  const problems: TreeProblem[] = [];
  const seen = new Set<string>();
  let previous: RawTreeEntry | null = null;
  for (const entry of entries) {
    const key = entry.name.toString("latin1");
    if (!GOOD_MODES.has(entry.mode)) {
      const why = /^0/.test(entry.mode) ? "zero-padded" : entry.mode === "100664" ? "group-writable (an early git's mode)" : "not one git writes";
      problems.push({ name: entry.name, rule: "bad_mode", detail: `mode ${entry.mode} is ${why}` });
    }
    const name = nameProblem(entry.name);
    if (name !== null) problems.push({ name: entry.name, ...name });
    if (/^0+$/.test(entry.oid)) problems.push({ name: entry.name, rule: "bad_tree", detail: "the entry points to the null object id" });
    if (seen.has(key)) problems.push({ name: entry.name, rule: "duplicate_name", detail: "two entries of one tree have this name" });
    else if (previous !== null && !inOrder(previous, entry))
      problems.push({ name: entry.name, rule: "bad_tree", detail: "the tree's entries are not in git's order" });
    seen.add(key);
    previous = entry;
  }
  return problems;
}

/** git's tree order: by name bytes, a tree's name compared as if it ended in `/`. */
function inOrder(a: RawTreeEntry, b: RawTreeEntry): boolean {
  const keyOf = (e: RawTreeEntry) => (e.mode === TREE_MODE ? Buffer.concat([e.name, Buffer.from("/")]) : e.name);
  return Buffer.compare(keyOf(a), keyOf(b)) < 0;
}
