/**
 * The plan format, version 1 (README, "The plan format"), as zod schemas: the trust boundary where text from
 * a comment, an issue or a planner agent becomes typed data. Shape, defaults, ids, paths and
 * estimates are checked here; rules across items (duplicates, `after`, cycles) in validate.ts.
 */
import { z } from "zod";
import { DEFAULT_ESTIMATE, parseEstimate } from "./estimate.ts";
import { isAncestorOrSelf, normalizePath, pathKey, type RepoPath } from "./paths.ts";
import type { PlanItem, PlanLimits } from "./types.ts";

/** Item ids become part of branch names (`naruto/<mission>--<item>`) and file names. */
export const ITEM_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export const PLAN_FIELDS = ["version", "title", "items"] as const;
export const ITEM_FIELDS = ["id", "title", "prompt", "writes", "reads", "after", "agent", "verify", "estimate", "readonly", "tests"] as const;

/** What an item may do to the tests (`tests:`): `may_weaken` lets it delete or skip tests without a `request_changes`. */
export const TEST_ALLOWANCES = ["may_weaken"] as const;

/**
 * Why `id` is not a valid item id, or null when it is. Beyond the pattern, git refuses `..`
 * anywhere in a branch name and a component ending in `.` or `.lock`, so those are refused here,
 * when the author can still fix them, and not when the branch is created.
 */
export function itemIdProblem(id: string): string | null {
  if (!ITEM_ID_PATTERN.test(id)) {
    return `id ${JSON.stringify(id)} is not valid: use 1 to 63 characters from a-z, 0-9, ".", "_" and "-", starting with a letter or digit`;
  }
  if (id.includes("..") || id.endsWith(".") || id.endsWith(".lock")) {
    return `id ${JSON.stringify(id)} cannot be part of a git branch name: avoid "..", and a "." or ".lock" at the end`;
  }
  return null;
}

// The pattern as a zod regex too, so that a JSON Schema made from this schema carries it.
const itemId = z
  .string({ error: "id must be a string" })
  .regex(ITEM_ID_PATTERN, { error: (issue) => itemIdProblem(String(issue.input)) ?? "invalid id", abort: true })
  .check((ctx) => {
    const problem = itemIdProblem(ctx.value);
    if (problem !== null) ctx.issues.push({ code: "custom", message: problem, input: ctx.value });
  });

/** A path in normal form; `protectedPaths` are refused (a write inside one), ancestors allowed. */
function pathSchema(protectedPaths: readonly RepoPath[]) {
  return z.string({ error: "a path must be a string" }).transform((input, ctx): RepoPath => {
    const result = normalizePath(input);
    if (!result.ok) {
      ctx.issues.push({ code: "custom", message: result.message, input });
      return z.NEVER;
    }
    // Only a write equal to or inside a protected path touches it; writing `.` or `.github/`
    // is allowed, because the scope check still refuses changes to protected paths at run time.
    const hit = protectedPaths.find((p) => isAncestorOrSelf(p, result.value));
    if (hit !== undefined) {
      ctx.issues.push({
        code: "custom",
        input,
        message: `${JSON.stringify(input)} is inside the protected path "${hit.path}": remove it from writes, or allow protected paths in the config`,
      });
      return z.NEVER;
    }
    return result.value;
  });
}

function pathList(protectedPaths: readonly RepoPath[], example: string) {
  return z.array(pathSchema(protectedPaths), { error: `must be a list of paths, such as ${example}` });
}

function text(field: string, max: number) {
  return z
    .string({ error: `${field} must be a string` })
    .refine((s) => s.trim() !== "", { message: `${field} is empty: leave it out to use the default` })
    .refine((s) => s.length <= max, { message: `${field} is longer than ${max} characters: shorten it` });
}

const estimate = z
  .union([z.number(), z.string()], { error: "estimate must be a duration such as 10m, 1h30m or 90s, or a number of minutes" })
  .transform((input, ctx): number => {
    const result = parseEstimate(input);
    if (result.ok) return result.value;
    ctx.issues.push({ code: "custom", message: result.message, input });
    return z.NEVER;
  });

/** The fields of one item as written, before defaults that depend on other fields. */
export function planItemShape(limits: PlanLimits) {
  return z.strictObject({
    id: itemId,
    title: text("title", limits.maxPromptChars).optional(),
    prompt: text("prompt", limits.maxPromptChars).optional(),
    writes: pathList(limits.allowProtected ? [] : limits.protected, "[src/api/users.ts, test/api/]").optional(),
    reads: pathList([], "[src/api/schema.ts]").default([]),
    after: z.array(z.string({ error: "after must list item ids" }), { error: "after must be a list of item ids" }).default([]),
    agent: z.string({ error: "agent must be a string" }).min(1, { error: "agent is empty: leave it out to use the default" }).default("default"),
    verify: z.string({ error: "verify must be a string (a command)" }).min(1, { error: "verify is empty: leave it out" }).optional(),
    estimate: estimate.optional(),
    readonly: z.boolean({ error: "readonly must be true or false" }).optional(),
    tests: z.enum(TEST_ALLOWANCES, { error: `tests must be ${TEST_ALLOWANCES.join(" or ")} (leave it out when the item must not weaken tests)` }).optional(),
  });
}

const WRITES_HELP =
  `list the files or directories this item changes in "writes" (a directory ends in "/"), ` + `or set "readonly: true" for an item that changes nothing`;

/**
 * One item, with defaults filled in and paths normalized. An item without writes is an error
 * unless it says `readonly: true`: an empty write set is more often a forgotten field than a
 * deliberate read-only item, and a read-only item's scope check refuses every change.
 */
export function planItemSchema(limits: PlanLimits) {
  // Cross-field rules run even when another field failed, so one pass reports every problem;
  // they stand aside when `writes` or `readonly` has an error of its own.
  const fieldsOk = (payload: z.core.ParsePayload) =>
    typeof payload.value === "object" &&
    payload.value !== null &&
    !Array.isArray(payload.value) &&
    !payload.issues.some((issue) => issue.path?.[0] === "writes" || issue.path?.[0] === "readonly");
  return planItemShape(limits)
    .refine((item) => item.readonly === true || (item.writes?.length ?? 0) > 0, {
      path: ["writes"],
      message: `the item writes nothing: ${WRITES_HELP}`,
      when: fieldsOk,
    })
    .refine((item) => item.readonly !== true || (item.writes?.length ?? 0) === 0, {
      path: ["readonly"],
      message: `a read-only item cannot have writes: remove "readonly: true", or empty "writes"`,
      when: fieldsOk,
    })
    .transform((item): PlanItem => {
      const title = item.title ?? item.id;
      return {
        id: item.id,
        title,
        prompt: item.prompt ?? title,
        writes: uniquePaths(item.writes ?? []),
        reads: uniquePaths(item.reads),
        after: [...new Set(item.after)],
        agent: item.agent,
        verify: item.verify ?? null,
        estimate: item.estimate ?? DEFAULT_ESTIMATE,
        readonly: item.readonly ?? false,
        tests: item.tests ?? null,
      };
    });
}

/** The plan around its items; items are checked one by one so each error names its item. */
export const planEnvelopeSchema = z.strictObject({
  // Absent means 1: a hand-written block in a comment should not fail for want of a header.
  version: z.literal(1, { error: "unsupported plan version: this naruto reads version 1" }).default(1),
  title: z.string({ error: "title must be a string" }).default(""),
  items: z.array(z.unknown(), { error: "items must be a list of work items" }),
});

/** The whole plan in one schema, for documentation and a published JSON Schema. */
export function planSchema(limits: PlanLimits) {
  return planEnvelopeSchema.extend({ items: z.array(planItemSchema(limits)) });
}

/**
 * Same path twice (also as `A.ts` and `a.ts`): keep the first spelling, silently. An item has a
 * few paths, so they are compared pairwise, without building a joined key for each. Takes a
 * list of its caller's own, and returns that very list when it holds no duplicate.
 */
export function uniquePaths(paths: RepoPath[]): RepoPath[] {
  if (paths.length > 16) {
    const seen = new Set<string>();
    return paths.filter((p) => {
      const key = pathKey(p);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  for (let i = 1; i < paths.length; i++) {
    for (let j = 0; j < i; j++) {
      if (sameKey(paths[i]!, paths[j]!)) return paths.filter((p, k) => paths.findIndex((q) => sameKey(p, q)) === k);
    }
  }
  return paths;
}

function sameKey(a: RepoPath, b: RepoPath): boolean {
  return a.key.length === b.key.length && isAncestorOrSelf(a, b);
}
