/**
 * The no-overlap proof document, `naruto.proof/v1` (docs/architecture.md): everything a checker needs to
 * confirm, from the plan alone, that no two items that may run at the same time write an
 * overlapping path. `verify-proof.ts` checks it without the planner's code.
 */
import { planDigest } from "./digest.ts";
import type { PlanOrder } from "./order.ts";
import type { ConflictOrder, Plan } from "./types.ts";

export const PROOF_SCHEMA = "naruto.proof/v1";

export interface ProofItem {
  readonly id: string;
  /** Normalized write paths, as in the validated plan. */
  readonly writes: readonly string[];
  /** Declared dependencies, as in the plan. */
  readonly after: readonly string[];
  /** Dependencies the planner added, in plan order. */
  readonly added_after: readonly string[];
}

export interface ProofConflict {
  /** Ordered before `b`. */
  readonly a: string;
  readonly b: string;
  /** The canonical overlapping path (see `WriteConflict.path`). */
  readonly path: string;
  readonly order: ConflictOrder;
  /**
   * The edge that orders the pair: for `added` the added edge a → b; for `declared` the first
   * hop of a declared chain from a to b (b itself when b lists a in `after`, else the first
   * item in plan order that lists a and leads on to b); null when `unordered`.
   */
  readonly edge: { readonly from: string; readonly to: string } | null;
}

export interface Proof {
  readonly schema: typeof PROOF_SCHEMA;
  /** `planDigest` of the plan: a proof of another (or an edited) plan is stale. */
  readonly plan_digest: string;
  /** True when every conflicting pair is ordered: no two items that may run together overlap. */
  readonly ok: boolean;
  /** In plan order. */
  readonly items: readonly ProofItem[];
  /** Every conflicting pair once, sorted by the plan positions of (a, b). */
  readonly conflicts: readonly ProofConflict[];
}

/** The proof for a plan and the planner's ordering of it. */
export function buildProof(plan: Plan, order: PlanOrder): Proof {
  const id = (i: number) => plan.items[i]?.id ?? "";
  return {
    schema: PROOF_SCHEMA,
    plan_digest: planDigest(plan),
    ok: order.conflicts.every((c) => c.order !== "unordered"),
    items: plan.items.map((item, i) => ({
      id: item.id,
      writes: item.writes.map((w) => w.path),
      after: [...item.after],
      added_after: (order.addedAfter[i] ?? []).map(id),
    })),
    conflicts: order.conflicts.map((c) => ({
      a: id(c.a),
      b: id(c.b),
      path: c.path.path,
      order: c.order,
      edge: c.edge === null ? null : { from: id(c.edge.from), to: id(c.edge.to) },
    })),
  };
}
