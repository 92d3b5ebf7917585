/**
 * Plan validation (README, "The plan format"): untrusted data in, a valid {@link Plan} or EVERY problem out,
 * each naming the item (id and position) and the field, so one round of fixes is enough.
 */
import { createFastItemParser } from "./fast-item.ts";
import { findCycles } from "./graph.ts";
import { defaultPlanLimits } from "./limits.ts";
import { issueToErrors } from "./schema-errors.ts";
import { ITEM_FIELDS, PLAN_FIELDS, planEnvelopeSchema, planItemSchema } from "./schema.ts";
import type { PlanError, PlanItem, PlanLimits, PlanResult } from "./types.ts";

export { defaultPlanLimits } from "./limits.ts";

/**
 * Checks a parsed plan (the output of `parsePlanText`, or any JSON value).
 *
 * @example
 * validatePlan({ version: 1, items: [{ id: "c", writes: ["x"], after: ["zz"] }] })
 * // { ok: false, errors: [{ item: "c", index: 0, field: "after[0]", message: 'unknown item "zz"' }] }
 */
export function validatePlan(raw: unknown, limits: PlanLimits = defaultPlanLimits()): PlanResult {
  const errors: PlanError[] = [];
  const plan = { item: null, index: null, known: PLAN_FIELDS };
  const envelope = planEnvelopeSchema.safeParse(raw);
  if (!envelope.success) for (const issue of envelope.error.issues) errors.push(...issueToErrors(issue, plan));
  const rawItems = isRecord(raw) && Array.isArray(raw.items) ? (raw.items as unknown[]) : null;
  if (rawItems === null) return { ok: false, errors };
  if (rawItems.length > limits.maxItems) {
    errors.push({
      item: null,
      index: null,
      field: "items",
      message: `the plan has ${rawItems.length} items, more than the limit of ${limits.maxItems}: split the request, or raise max_items in the config (--max-items)`,
    });
  }
  if (rawItems.length === 0) {
    errors.push({ item: null, index: null, field: "items", message: "the plan has no items: add at least one" });
  }

  // Most items are plainly well formed and skip zod; zod still decides, and words, the rest.
  const fast = createFastItemParser(limits);
  let schema: ReturnType<typeof planItemSchema> | null = null;
  const items: PlanItem[] = [];
  rawItems.forEach((rawItem, index) => {
    const quick = fast(rawItem);
    if (quick !== null) {
      items.push(quick);
      return;
    }
    const parsed = (schema ??= planItemSchema(limits)).safeParse(rawItem);
    if (parsed.success) items.push(parsed.data);
    else {
      const site = { item: looseId(rawItem), index, known: ITEM_FIELDS };
      for (const issue of parsed.error.issues) errors.push(...issueToErrors(issue, site));
    }
  });
  errors.push(...graphErrors(rawItems));

  if (errors.length > 0 || !envelope.success) return { ok: false, errors: sortErrors(errors) };
  return { ok: true, plan: { version: 1, title: envelope.data.title, items } };
}

/**
 * Rules across items: duplicate ids, unknown or self `after`, cycles. They read the raw items
 * leniently, so that an item with a bad field elsewhere still counts as an id and its edges
 * still count for cycles: every error shows up in one pass.
 */
function graphErrors(rawItems: readonly unknown[]): PlanError[] {
  const errors: PlanError[] = [];
  const firstIndex = new Map<string, number>();
  const ids = rawItems.map(looseId);
  ids.forEach((id, index) => {
    if (id === null) return;
    const first = firstIndex.get(id);
    if (first === undefined) firstIndex.set(id, index);
    else errors.push({ item: id, index, field: "id", message: `duplicate id "${id}": items[${first}] has it too; give each item its own id` });
  });

  // Which `after[k]` made each edge, so that a cycle names the field to change: `fields[i][j]`
  // is the k of `deps[i][j]`. `edgeOf[t] === i` when item i already has an edge to t (the
  // first `after` entry naming t makes it), without a set per item.
  const deps: number[][] = [];
  const fields: number[][] = [];
  const edgeOf = new Int32Array(rawItems.length).fill(-1);
  rawItems.forEach((rawItem, index) => {
    const id = ids[index] ?? null;
    const list: number[] = [];
    const ks: number[] = [];
    const after = looseAfter(rawItem);
    for (let k = 0; k < after.length; k++) {
      const dep = after[k];
      if (typeof dep !== "string") continue; // not a string (or a hole): the schema reported it
      const target = firstIndex.get(dep);
      if (dep === id) {
        errors.push({ item: id, index, field: `after[${k}]`, message: `the item cannot come after itself: remove "${dep}"` });
      } else if (target === undefined) {
        errors.push({ item: id, index, field: `after[${k}]`, message: `unknown item ${JSON.stringify(dep)}` });
      } else if (edgeOf[target] !== index) {
        edgeOf[target] = index;
        list.push(target);
        ks.push(k);
      }
    }
    deps.push(list);
    fields.push(ks);
  });

  for (const cycle of findCycles(deps)) {
    const [start, next] = [cycle[0] ?? 0, cycle[1] ?? 0];
    const names = [...cycle, start].map((i) => ids[i] ?? `items[${i}]`);
    errors.push({
      item: ids[start] ?? null,
      index: start,
      field: `after[${fields[start]?.[deps[start]?.indexOf(next) ?? -1] ?? 0}]`,
      message: `cycle: ${names.join(" → ")} (each item waits for the next): remove one of these "after" entries`,
    });
  }
  return errors;
}

function looseId(rawItem: unknown): string | null {
  return isRecord(rawItem) && typeof rawItem.id === "string" ? rawItem.id : null;
}

function looseAfter(rawItem: unknown): readonly unknown[] {
  return isRecord(rawItem) && Array.isArray(rawItem.after) ? (rawItem.after as unknown[]) : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Plan-level errors first, then by item position; within one item in the order found. */
function sortErrors(errors: PlanError[]): PlanError[] {
  return errors
    .map((error, order) => ({ error, order }))
    .sort((x, y) => (x.error.index ?? -1) - (y.error.index ?? -1) || x.order - y.order)
    .map((x) => x.error);
}

/**
 * The human form of an error.
 *
 * @example formatPlanError({ item: "orders-api", index: 3, field: "writes[1]", message: '".." leaves the repository' })
 * // 'items[3] (id "orders-api").writes[1]: ".." leaves the repository'
 */
export function formatPlanError(error: PlanError): string {
  const where =
    error.index === null
      ? error.field
      : `items[${error.index}]${error.item === null ? "" : ` (id ${JSON.stringify(error.item)})`}${error.field === "" ? "" : `.${error.field}`}`;
  return where === "" ? error.message : `${where}: ${error.message}`;
}
