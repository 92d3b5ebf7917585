/**
 * Copy-on-write for one step (issue 15): a step never modifies the mission it is given and never
 * copies all of it either. {@link beginDraft} makes a new top-level object with its own items
 * array; an item is copied (with its attempts) only when {@link own} is asked for it, once per
 * step. Every other item, and everything else inside the mission, is shared with the input:
 * missions are values and nothing may modify one in place outside a step's draft.
 *
 * Lookups by id go through {@link itemIndex}, built once per plan and handed from each mission to
 * the next, so that finding an item is O(1) instead of a scan of the items.
 */
import { indexGraph, type IndexedGraph } from "../plan/index.ts";
import type { Mission, MissionItem } from "./document.ts";

/** Items copied in the step that made the draft: only those may be changed in place. */
const fresh = new WeakMap<Mission, Set<MissionItem>>();
/**
 * What depends only on the plan (ids and dependencies never change once planned), by items array:
 * id → position, and the dependency graph. A step's new array inherits it from the one it copied.
 */
interface PlanIndex {
  readonly index: ReadonlyMap<string, number>;
  /** Each item's declared and added dependencies; with the graph, built when first asked for. */
  graph?: { readonly deps: readonly (readonly string[])[]; readonly indexed: IndexedGraph };
}
const indexes = new WeakMap<readonly MissionItem[], PlanIndex>();

/** A writable top level over `mission` (which stays untouched): items, queue and tamper record are its own. */
export function beginDraft(mission: Mission): Mission {
  const items = mission.items.slice();
  const index = indexes.get(mission.items);
  if (index) indexes.set(items, index);
  const m: Mission = { ...mission, items, queue: { ...mission.queue }, tampering: mission.tampering.slice() };
  fresh.set(m, new Set());
  return m;
}

/** The draft is done: what it holds is now a value like any other mission. */
export function endDraft(m: Mission): void {
  fresh.delete(m);
}

/**
 * The draft's own copy of `item` (one of `m.items`), which may be changed in place: copied with
 * its attempts the first time it is asked for in this step, the same copy after that.
 */
export function own(m: Mission, item: MissionItem): MissionItem {
  const mine = fresh.get(m);
  if (mine === undefined) throw new Error("own() outside a step: missions are never changed in place");
  if (mine.has(item)) return item;
  const at = positionOf(m, item.id);
  if (at === undefined || m.items[at] !== item) throw new Error(`item "${item.id}" is not one of the draft's items`);
  const copy: MissionItem = { ...item, attempts: item.attempts.map((a) => ({ ...a })) };
  m.items[at] = copy;
  mine.add(copy);
  return copy;
}

/** Marks items a step made itself (a new plan) as the draft's own. */
export function adopt(m: Mission, items: readonly MissionItem[]): void {
  const mine = fresh.get(m);
  for (const item of items) mine?.add(item);
}

function planIndex(m: Pick<Mission, "items">): PlanIndex {
  let plan = indexes.get(m.items);
  if (plan === undefined) {
    plan = { index: new Map(m.items.map((item, i) => [item.id, i])) };
    indexes.set(m.items, plan);
  }
  return plan;
}

/** id → position of the mission's items; O(1) after the first call for a plan. */
export function itemIndex(m: Pick<Mission, "items">): ReadonlyMap<string, number> {
  return planIndex(m).index;
}

/**
 * The items' dependency graph (declared and added `after`), by position, and each item's
 * dependencies: built once per plan, not per event.
 * @throws {WorkGraphError} on unknown dependencies or a cycle.
 */
export function planGraph(m: Pick<Mission, "items">): { readonly deps: readonly (readonly string[])[]; readonly indexed: IndexedGraph } {
  const plan = planIndex(m);
  if (plan.graph === undefined) {
    const deps = m.items.map((i) => [...i.after, ...i.added_after]);
    plan.graph = { deps, indexed: indexGraph(m.items.map((i, k) => ({ id: i.id, deps: deps[k] ?? [] }))) };
  }
  return plan.graph;
}

function positionOf(m: Pick<Mission, "items">, id: string): number | undefined {
  return itemIndex(m).get(id);
}

/** The item with `id`, or undefined. */
export function findItem(m: Pick<Mission, "items">, id: string): MissionItem | undefined {
  const at = positionOf(m, id);
  return at === undefined ? undefined : m.items[at];
}
