/**
 * `checkPlan`: text (or parsed data) in, everything `naruto plan` prints out (docs/architecture.md):
 * the validated plan, the errors, each item's declared and added dependencies, the conflicts
 * and how each is ordered, and the proof.
 */
import { defaultPlanLimits } from "./limits.ts";
import { orderPlan } from "./order.ts";
import { parsePlanText, type PlanFormat } from "./parse.ts";
import { buildProof, type Proof } from "./proof.ts";
import type { OrderedItem, Plan, PlanConflict, PlanError, PlanLimits } from "./types.ts";
import { validatePlan } from "./validate.ts";

export interface CheckOptions {
  readonly limits?: PlanLimits;
  /** A conflicting pair that the plan's own `after` edges do not order is an error. */
  readonly strict?: boolean;
}

export interface CheckResult {
  /** The plan is valid and (in strict mode) needs no added edge: it is safe to run as proven. */
  readonly ok: boolean;
  /** The validated plan; null when the text or the plan is invalid. */
  readonly plan: Plan | null;
  /** Where the plan came from, when it could be read. */
  readonly format: PlanFormat | null;
  readonly errors: readonly PlanError[];
  /** Empty when the plan is invalid. */
  readonly items: readonly OrderedItem[];
  readonly conflicts: readonly PlanConflict[];
  /** Null when the plan is invalid. */
  readonly proof: Proof | null;
}

/**
 * Reads, validates and orders a plan, and proves it.
 *
 * @example
 * checkPlan("items: [{id: a, writes: [src/]}, {id: b, writes: [src/x.ts]}]")
 * // { ok: true, items: [{ id: "a", after: [], added_after: [] }, { id: "b", after: [], added_after: ["a"] }],
 * //   conflicts: [{ a: "a", b: "b", path: "src/x.ts", order: "added" }], proof: { schema: "naruto.proof/v1", … }, … }
 */
export function checkPlan(input: unknown, options: CheckOptions = {}): CheckResult {
  const invalid = (errors: readonly PlanError[], format: PlanFormat | null): CheckResult => ({
    ok: false,
    plan: null,
    format,
    errors,
    items: [],
    conflicts: [],
    proof: null,
  });
  let raw = input;
  let format: PlanFormat | null = null;
  if (typeof input === "string") {
    const parsed = parsePlanText(input);
    if (!parsed.ok) return invalid(parsed.errors, null);
    ({ raw, format } = parsed);
  }
  const validated = validatePlan(raw, options.limits ?? defaultPlanLimits());
  if (!validated.ok) return invalid(validated.errors, format);

  const plan = validated.plan;
  const order = orderPlan(plan, { strict: options.strict === true });
  const proof = buildProof(plan, order);
  const unordered = proof.conflicts.filter((c) => c.order === "unordered");
  // Positions only for the errors, which a plan that passes does not have.
  const index = unordered.length > 0 ? new Map(plan.items.map((item, i) => [item.id, i])) : null;
  const errors: PlanError[] = unordered.map((c) => ({
    item: c.b,
    index: index?.get(c.b) ?? null,
    field: "after",
    message: `may run at the same time as "${c.a}" and both write "${c.path}": add "${c.a}" to after, or split the writes so they do not overlap`,
  }));
  return {
    ok: errors.length === 0,
    plan,
    format,
    errors,
    items: proof.items.map(({ id, after, added_after }) => ({ id, after, added_after })),
    conflicts: proof.conflicts.map(({ a, b, path, order }) => ({ a, b, path, order })),
    proof,
  };
}
