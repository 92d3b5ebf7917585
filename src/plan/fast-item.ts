/**
 * A fast path past zod for plan items that are plainly well formed.
 *
 * Why it exists: zod builds issue lists, copies objects and runs each refinement and transform
 * through its pipeline, some 30 µs per item; on a 10,000-item plan that was half of checking
 * it (README, "Development" asks for well under a second for the whole check and proof).
 *
 * What it guarantees: it returns a {@link PlanItem} only for an item that `planItemSchema(limits)`
 * accepts, and then exactly the item zod returns — same fields in the same order, paths from the
 * same normalizer, the same defaults and the same de-duplication. For anything else, and
 * whenever in doubt (a prototype other than a plain object's, a value of an unexpected type),
 * it returns null, and the caller asks zod: every error message still comes from the schema,
 * and only from it. `fast-item.test.ts` checks the agreement on random valid and invalid items.
 */
import { DEFAULT_ESTIMATE, parseEstimate } from "./estimate.ts";
import { isAncestorOrSelf, normalizePath, type RepoPath } from "./paths.ts";
import { ITEM_FIELDS, itemIdProblem, uniquePaths } from "./schema.ts";
import type { PlanItem, PlanLimits } from "./types.ts";

const KNOWN_FIELDS: ReadonlySet<string> = new Set(ITEM_FIELDS);

/** The fast path for items checked against `limits`: a PlanItem, or null for "ask zod". */
export function createFastItemParser(limits: PlanLimits): (raw: unknown) => PlanItem | null {
  // As in planItemSchema: writes may not be inside a protected path, reads may.
  const protectedPaths = limits.allowProtected ? [] : limits.protected;
  const maxChars = limits.maxPromptChars;
  return (raw) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
    const proto: unknown = Object.getPrototypeOf(raw);
    if (proto !== Object.prototype && proto !== null) return null;
    // `for…in`, as zod's strict object uses to find unknown keys.
    for (const key in raw) if (!KNOWN_FIELDS.has(key)) return null;
    const item = raw as Record<string, unknown>;

    // Each field read once, as zod reads it.
    const { id, title, prompt, writes: rawWrites, reads: rawReads, after: rawAfter, agent, verify, estimate: rawEstimate, readonly, tests } = item;
    // Rare: an item that sets `tests` goes to zod.
    if (tests !== undefined) return null;
    if (typeof id !== "string" || itemIdProblem(id) !== null) return null;
    if (!isOptionalText(title, maxChars) || !isOptionalText(prompt, maxChars)) return null;
    // `undefined` is "left out" (zod's optional and default); null is not, and goes to zod.
    if (!isOptionalNonEmpty(agent) || !isOptionalNonEmpty(verify)) return null;
    if (readonly !== undefined && typeof readonly !== "boolean") return null;
    const writes = rawWrites === undefined ? [] : pathList(rawWrites, protectedPaths);
    const reads = rawReads === undefined ? [] : pathList(rawReads, []);
    const after = rawAfter === undefined ? [] : stringList(rawAfter);
    if (writes === null || reads === null || after === null) return null;
    let estimate = DEFAULT_ESTIMATE;
    if (rawEstimate !== undefined) {
      if (typeof rawEstimate !== "number" && typeof rawEstimate !== "string") return null;
      const parsed = parseEstimate(rawEstimate);
      if (!parsed.ok) return null;
      estimate = parsed.value;
    }
    // The schema's cross-field rules: writes, or `readonly: true` and no writes.
    if (readonly === true ? writes.length > 0 : writes.length === 0) return null;

    const shownTitle = title ?? id;
    return {
      id,
      title: shownTitle,
      prompt: prompt ?? shownTitle,
      writes: uniquePaths(writes),
      reads: uniquePaths(reads),
      after: after.length < 2 ? after : [...new Set(after)],
      agent: agent ?? "default",
      verify: verify ?? null,
      estimate,
      readonly: readonly ?? false,
      tests: null,
    };
  };
}

/** The schema's `text()`, optional: left out, or a string that is not blank nor too long. */
function isOptionalText(value: unknown, maxChars: number): value is string | undefined {
  return value === undefined || (typeof value === "string" && value.trim() !== "" && value.length <= maxChars);
}

/** `z.string().min(1)`, optional. */
function isOptionalNonEmpty(value: unknown): value is string | undefined {
  return value === undefined || (typeof value === "string" && value.length > 0);
}

function pathList(value: unknown, protectedPaths: readonly RepoPath[]): RepoPath[] | null {
  if (!Array.isArray(value)) return null;
  // Sized up front: an empty array grows to 17 slots on its first push, and the plan keeps it.
  const out = new Array<RepoPath>(value.length);
  // By index, as zod reads arrays: a hole is `undefined`, not skipped.
  for (let k = 0; k < value.length; k++) {
    const input: unknown = value[k];
    if (typeof input !== "string") return null;
    const result = normalizePath(input);
    if (!result.ok) return null;
    for (const p of protectedPaths) if (isAncestorOrSelf(p, result.value)) return null;
    out[k] = result.value;
  }
  return out;
}

function stringList(value: unknown): string[] | null {
  if (!Array.isArray(value)) return null;
  for (let k = 0; k < value.length; k++) if (typeof value[k] !== "string") return null;
  return (value as string[]).slice();
}
