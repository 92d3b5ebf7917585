/**
 * What `naruto plan` computes for a plan text: the check, the JSON object of the contract
 * (docs/architecture.md) and the estimated timeline. The command prints it; plan-format.ts renders it.
 */
import type { Config } from "../config/index.ts";
import { simulate } from "../mission/index.ts";
import { checkPlan, defaultPlanLimits, type CheckResult, type PlanError } from "../plan/index.ts";
import { computeRanks } from "../plan/index.ts";

export interface PlanCommandOptions {
  readonly json: boolean;
  readonly strict: boolean;
  readonly maxParallel: number | null;
  readonly maxItems: number | null;
}

/** The JSON object `naruto plan --json` prints: exactly the contract of docs/architecture.md. */
export interface PlanJson {
  readonly ok: boolean;
  readonly items: readonly { id: string; after: readonly string[]; added_after: readonly string[]; rank: number }[];
  readonly conflicts: CheckResult["conflicts"];
  readonly schedule: { max_parallel: number; makespan: number; lower_bound: number } | null;
  readonly proof: CheckResult["proof"];
  readonly errors: readonly { item: string | null; field: string; message: string }[];
}

export interface PlanReport {
  readonly check: CheckResult;
  readonly json: PlanJson;
  readonly timeline: readonly { id: string; start: number; end: number; slot: number }[];
}

/** Checks a plan text and builds everything the command prints. */
export function planReport(text: string, options: PlanCommandOptions, config: Config | null): PlanReport {
  const maxParallel = options.maxParallel ?? config?.limits.max_parallel ?? 4;
  const defaults = defaultPlanLimits();
  const limits = {
    ...defaults,
    maxItems: options.maxItems ?? config?.limits.max_items ?? defaults.maxItems,
    ...(config ? { protected: config.protected, allowProtected: config.allow_protected } : {}),
  };
  const check = checkPlan(text, { limits, strict: options.strict });
  const errors = check.errors.map((e: PlanError) => ({ item: e.item, field: e.field, message: e.message }));
  if (!check.plan) {
    return { check, timeline: [], json: { ok: false, items: [], conflicts: [], schedule: null, proof: null, errors } };
  }
  const added = new Map(check.items.map((i) => [i.id, i.added_after]));
  const nodes = check.plan.items.map((i) => ({ id: i.id, estimate: i.estimate, deps: [...i.after, ...(added.get(i.id) ?? [])] }));
  const ranks = computeRanks(nodes);
  const sim = simulate({ nodes, slots: maxParallel });
  return {
    check,
    timeline: sim.timeline,
    json: {
      ok: check.ok,
      items: check.items.map((i) => ({ id: i.id, after: i.after, added_after: i.added_after, rank: ranks.get(i.id) ?? 0 })),
      conflicts: check.conflicts,
      schedule: { max_parallel: maxParallel, makespan: sim.makespan, lower_bound: sim.lowerBound },
      proof: check.proof,
      errors,
    },
  };
}
