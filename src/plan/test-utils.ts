/**
 * Builders for plan tests: raw plans as an author writes them, valid plans, and fast-check
 * generators of random valid plans. Test-only; not exported from index.ts.
 */
import fc from "fast-check";
import { defaultPlanLimits } from "./limits.ts";
import type { Plan } from "./types.ts";
import { validatePlan } from "./validate.ts";

export interface RawItem {
  id: string;
  writes?: string[];
  after?: string[];
  [field: string]: unknown;
}

/** A raw item as written in a plan. */
export function item(id: string, writes: string[], after: string[] = [], extra: Record<string, unknown> = {}): RawItem {
  return { id, writes, after, ...extra };
}

export function rawPlan(...items: RawItem[]): { version: 1; items: RawItem[] } {
  return { version: 1, items };
}

/** Validates a raw plan that the test means to be valid. */
export function mustPlan(raw: unknown): Plan {
  const result = validatePlan(raw, { ...defaultPlanLimits(), maxItems: 100_000 });
  if (!result.ok) throw new Error(`expected a valid plan:\n${JSON.stringify(result.errors, null, 2)}`);
  return result.plan;
}

/** Few names, so that random paths overlap often; "A" and "a" differ only in case. */
const component = fc.constantFrom("a", "b", "c", "A", "ab");

export const pathArb: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.tuple(fc.array(component, { minLength: 1, maxLength: 3 }), fc.boolean()).map(([parts, dir]) => parts.join("/") + (dir ? "/" : "")),
  },
  { weight: 1, arbitrary: fc.constant(".") },
);

/**
 * Random valid plans: up to `maxItems` items with 0–3 writes (none: a read-only item) and `after`
 * edges that follow a random hidden order, so there is no cycle but plan order is not the
 * dependency order.
 */
export function planArb({ maxItems = 10 }: { maxItems?: number } = {}): fc.Arbitrary<Plan> {
  return fc.integer({ min: 1, max: maxItems }).chain((n) =>
    fc
      .record({
        writes: fc.array(fc.array(pathArb, { maxLength: 3 }), { minLength: n, maxLength: n }),
        hidden: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 2 * n }),
      })
      .map(({ writes, hidden, edges }) => {
        const rank = new Map(hidden.map((item, k) => [item, k]));
        const after: string[][] = writes.map(() => []);
        for (const [x, y] of edges) {
          if ((rank.get(x) ?? 0) < (rank.get(y) ?? 0)) after[y]?.push(`i${x}`);
        }
        return mustPlan(rawPlan(...writes.map((w, i) => (w.length === 0 ? item(`i${i}`, [], after[i], { readonly: true }) : item(`i${i}`, w, after[i])))));
      }),
  );
}
