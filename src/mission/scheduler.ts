/**
 * The scheduling policy (docs/architecture.md): a pure function from the items' statuses to what to start
 * now and what can never run. The mission engine applies the decision.
 */
import { indexGraph, WorkGraphError, type IndexedGraph } from "../plan/index.ts";
import { isFailure, isFinal, isRunning, type ItemStatus } from "./status.ts";

/** GitHub Actions runs at most 256 jobs in one matrix. */
export const MAX_PER_MATRIX = 256;

/** What the scheduler needs to know about one item. */
export interface SchedulerItem {
  readonly id: string;
  /** Declared and added `after` edges: all known ids, no cycle. */
  readonly deps: readonly string[];
  /** Critical-path rank (`computeRanks`): higher starts first. */
  readonly rank: number;
  readonly status: ItemStatus;
  /**
   * Attempts the item may still make (`max_attempts` minus attempts made). A failure with attempts
   * left is started again; a failure with none is failed for good and its dependents are skipped.
   */
  readonly attemptsLeft: number;
  /** `running`, but its agent has exited (`agent_exited`): naruto checks what it left, no agent runs. */
  readonly agentExited?: boolean;
}

/** The mission as the scheduler sees it: the items in plan order (ties in rank go by it). */
export interface SchedulerState {
  readonly items: readonly SchedulerItem[];
  /**
   * `indexGraph` of these items, when the caller keeps it from one call to the next (the graph
   * never changes once planned); absent: built here, O(V + E).
   */
  readonly graph?: IndexedGraph;
}

/** How much may run at once. */
export interface SchedulerLimits {
  /**
   * Most agents at once: `running` items count unless their agent has exited (`agentExited`);
   * `checkpointed` items do not count.
   */
  readonly maxParallel: number;
  /** Most items started by one call, one Actions matrix; default and ceiling {@link MAX_PER_MATRIX}. */
  readonly maxPerMatrix?: number;
}

/** An item that can never run, and why (names the dependency that failed). */
export interface SkipDecision {
  readonly id: string;
  readonly reason: string;
}

/** What to do now. */
export interface SchedulerDecision {
  /** Items to start an attempt of, highest rank first: new items and failures to retry. */
  readonly start: readonly string[];
  /** Pending or ready items behind a dependency that failed for good, was skipped or cancelled; plan order. */
  readonly skip: readonly SkipDecision[];
  /** Items whose dependencies are integrated but which wait for a free agent, highest rank first. */
  readonly ready: readonly string[];
}

/** Why an item's dependents cannot run: the item at the root of the failure and what happened to it. */
interface Cause {
  readonly root: string;
  readonly what: string;
}

/**
 * Decides which items to start and which to skip.
 *
 * An item is ready when every dependency is `integrated`, so that it starts from code that
 * contains its dependencies. Ready items (`pending` or `ready`) and failures with attempts left
 * start highest rank first, ties in plan order, while fewer than `maxParallel` are `running`, and
 * at most `maxPerMatrix` per call. A `pending` or `ready` item behind a dependency that failed for
 * good, was skipped or was cancelled (directly or through a chain) is skipped with a reason naming
 * that dependency, so no item waits forever. O((V + E) + R log R) for R ready items.
 *
 * @example
 * nextToStart({ items: [
 *   { id: "a", deps: [], rank: 2, status: "out_of_scope", attemptsLeft: 0 },
 *   { id: "b", deps: ["a"], rank: 1, status: "pending", attemptsLeft: 2 },
 * ] }, { maxParallel: 4 })
 * // { start: [], skip: [{ id: "b", reason: 'dependency "a" failed (out_of_scope)' }], ready: [] }
 * @throws {WorkGraphError} on unknown dependencies, cycles or a rank that is not a number.
 * @throws {RangeError} when a limit is not a whole number of at least 1.
 */
export function nextToStart(state: SchedulerState, limits: SchedulerLimits): SchedulerDecision {
  const perMatrix = Math.min(limits.maxPerMatrix ?? MAX_PER_MATRIX, MAX_PER_MATRIX);
  checkLimit("maxParallel", limits.maxParallel);
  checkLimit("maxPerMatrix", perMatrix);
  const items = state.items;
  const graph = state.graph ?? indexGraph(items);
  const causes: (Cause | null)[] = new Array<Cause | null>(items.length).fill(null);
  const skipped: { readonly at: number; readonly decision: SkipDecision }[] = [];
  const candidates: number[] = [];
  let running = 0;
  // Dependencies first, so that a skip propagates down a whole chain in one call.
  for (const i of graph.order) {
    const item = items[i];
    if (item === undefined) continue;
    if (!Number.isFinite(item.rank)) throw new WorkGraphError(`"${item.id}" has rank ${item.rank}`, item.id);
    if (isRunning(item.status) && item.agentExited !== true) running++;
    const deps = graph.deps[i] ?? [];
    if (item.status === "pending" || item.status === "ready") {
      const blocker = deps.find((d) => causes[d] !== null);
      const cause = blocker === undefined ? null : causes[blocker];
      if (blocker !== undefined && cause) {
        const via = items[blocker]?.id;
        const reason = `dependency "${cause.root}" ${cause.what}`;
        skipped.push({ at: i, decision: { id: item.id, reason: cause.root === via ? reason : `${reason}, via "${via}"` } });
        causes[i] = cause;
        continue;
      }
    } else if (isFinal(item.status, item.attemptsLeft) && item.status !== "integrated") {
      causes[i] = { root: item.id, what: isFailure(item.status) ? `failed (${item.status})` : `was ${item.status}` };
    }
    const startable = item.status === "pending" || item.status === "ready" || (isFailure(item.status) && item.attemptsLeft > 0);
    if (startable && deps.every((d) => items[d]?.status === "integrated")) candidates.push(i);
  }
  candidates.sort((a, b) => (items[b]?.rank ?? 0) - (items[a]?.rank ?? 0) || a - b);
  const count = Math.min(Math.max(limits.maxParallel - running, 0), perMatrix, candidates.length);
  const ids = candidates.map((i) => items[i]?.id ?? "");
  const skip = skipped.sort((a, b) => a.at - b.at).map((s) => s.decision);
  return { start: ids.slice(0, count), skip, ready: ids.slice(count) };
}

function checkLimit(name: string, value: number): void {
  if (!(value >= 1 && (Number.isInteger(value) || value === Number.POSITIVE_INFINITY))) {
    throw new RangeError(`scheduler limit ${name} is ${value}; use a whole number of at least 1`);
  }
}
