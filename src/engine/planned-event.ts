/**
 * The `planned` event of a checked plan, the same whoever planned (an explicit plan, the planner
 * agent locally, the Action's plan job): items with their added edges and critical-path ranks.
 */
import type { MissionEvent, PlannedItem } from "../mission/index.ts";
import type { CheckResult } from "../plan/index.ts";
import { computeRanks } from "../plan/index.ts";

/** The `planned` event of a checked plan: items with their added edges and ranks. */
export function plannedEvent(check: CheckResult, at: string): MissionEvent {
  if (!check.plan || !check.proof) throw new Error("plannedEvent needs a valid plan");
  const added = new Map(check.items.map((i) => [i.id, i.added_after]));
  const ranks = computeRanks(check.plan.items.map((i) => ({ id: i.id, estimate: i.estimate, deps: [...i.after, ...(added.get(i.id) ?? [])] })));
  const items: PlannedItem[] = check.plan.items.map((i) => ({
    id: i.id,
    title: i.title,
    prompt: i.prompt,
    writes: i.writes.map((w) => w.path),
    reads: i.reads.map((r) => r.path),
    after: [...i.after],
    added_after: [...(added.get(i.id) ?? [])],
    agent: i.agent,
    verify: i.verify,
    estimate: i.estimate,
    readonly: i.readonly,
    rank: ranks.get(i.id) ?? 1,
    tests: i.tests,
  }));
  return { type: "planned", at, title: check.plan.title, items, proof: check.proof };
}
