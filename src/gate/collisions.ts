/**
 * Names that are one name where a checkout lives on macOS or Windows (the README's plan format:
 * paths are compared case-insensitively and Unicode-normalized): `README.md` and `readme.md`, and
 * `é.txt` written precomposed (NFC) and decomposed (NFD). Git on Linux holds both side by side; a checkout
 * on a case-insensitive or normalizing file system keeps one of them and shows the other as
 * changed, so a change that brings such a pair is refused by the gate, both names in the reason.
 * Pure: the comparison form is the plan's own ({@link keyOf}).
 */
import { isUtf8 } from "node:buffer";
import { keyOf } from "../plan/index.ts";
import type { NameBytes } from "./names.ts";

/**
 * The groups of distinct names of one tree that compare equal (case-folded, NFC); names that
 * are not UTF-8 compare by their bytes, ASCII letters case-folded.
 *
 * @example collidingNames([b("README.md"), b("readme.md"), b("a.ts")]) → [[README.md, readme.md]]
 */
export function collidingNames(names: readonly NameBytes[]): NameBytes[][] {
  const groups = new Map<string, NameBytes[]>();
  for (const name of names) {
    const key = comparisonKey(name);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [name]);
    else if (!group.some((n) => n.equals(name))) group.push(name);
  }
  return [...groups.values()].filter((g) => g.length > 1);
}

function comparisonKey(name: NameBytes): string {
  if (isUtf8(name)) return `u${keyOf(name.toString("utf8"))}`;
  return `b${name.toString("latin1").replace(/[A-Z]/g, (c) => c.toLowerCase())}`;
}

/**
 * A path for a report in which two names that look alike stay apart: as text when it is UTF-8
 * in NFC without control characters, else JSON-quoted with every character outside printable
 * ASCII written as `\uXXXX` (`"src/e\u0301.txt"` beside `src/é.txt`).
 */
export function showDistinctPath(path: Buffer): string {
  const text = path.toString("utf8");
  if (isUtf8(path) && text === text.normalize("NFC") && !/[\u0000-\u001f\u007f]/.test(text)) return text;
  return JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
