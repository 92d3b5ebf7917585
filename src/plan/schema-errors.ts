/**
 * Turns zod issues into {@link PlanError}s that name the item and field, and suggest the field
 * the author probably meant when a field is unknown (`write` → `writes`).
 */
import type { z } from "zod";
import type { PlanError } from "./types.ts";

/** Where an issue was found: the plan itself, or item `index` (with its id when it has one). */
export interface IssueSite {
  readonly item: string | null;
  readonly index: number | null;
  /** The fields that exist at this level, for "did you mean". */
  readonly known: readonly string[];
}

// Names other tools use for the same idea; an edit distance would not find them.
const ALIASES: Readonly<Record<string, string>> = {
  depends_on: "after",
  dependencies: "after",
  deps: "after",
  needs: "after",
  requires: "after",
  files: "writes",
  paths: "writes",
  owns: "writes",
  outputs: "writes",
  name: "title",
  description: "prompt",
  instructions: "prompt",
  task: "prompt",
  test: "verify",
  check: "verify",
  duration: "estimate",
  time: "estimate",
  read_only: "readonly",
};

/** One PlanError per problem; an unknown-keys issue becomes one error per key. */
export function issueToErrors(issue: z.core.$ZodIssue, site: IssueSite): PlanError[] {
  const base = formatField(issue.path);
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({
      item: site.item,
      index: site.index,
      field: base === "" ? key : `${base}.${key}`,
      message: unknownFieldMessage(key, site.known),
    }));
  }
  return [{ item: site.item, index: site.index, field: base, message: issue.message }];
}

/** `["writes", 1]` → `writes[1]`; `["a", "b"]` → `a.b`. */
export function formatField(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

export function unknownFieldMessage(key: string, known: readonly string[]): string {
  const guess = suggestField(key, known);
  return guess === null
    ? `unknown field ${JSON.stringify(key)}: the known fields are ${known.join(", ")}`
    : `unknown field ${JSON.stringify(key)}: did you mean ${JSON.stringify(guess)}?`;
}

/** The known field closest to `key`: an alias, a case or plural slip, or a small typo. */
export function suggestField(key: string, known: readonly string[]): string | null {
  const lower = key.toLowerCase().replace(/-/g, "_");
  const alias = ALIASES[lower];
  if (alias !== undefined && known.includes(alias)) return alias;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const field of known) {
    const d = editDistance(lower, field);
    if (d < bestDistance) [best, bestDistance] = [field, d];
  }
  // Two edits is "writes" for "wirtes"; more would suggest unrelated words.
  return bestDistance <= Math.min(2, Math.floor(lower.length / 2)) ? best : null;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
