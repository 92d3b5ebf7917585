/**
 * Discrete-event simulation of the scheduling policy (docs/architecture.md), used by `naruto plan` for
 * the estimated timeline and by `bench/schedule` to compare it with wave-by-wave scheduling.
 * A slot is one agent that may run at a time (`max_parallel` slots).
 */
import { indexGraph, longestPaths, ranksOf, WorkGraphError, type IndexedGraph, type WorkNode } from "../plan/index.ts";
import { createHeap } from "./heap.ts";

/** What to simulate. */
export interface SimulationInput {
  readonly nodes: readonly WorkNode[];
  /** Agents that may run at once (whole number, at least 1). */
  readonly slots: number;
  /**
   * How long each item really takes, by id; an item not listed takes its estimate. Priorities
   * always come from the estimates, which is all a real scheduler knows.
   */
  readonly durations?: ReadonlyMap<string, number>;
}

/** When and where one item ran. */
export interface TimelineEntry {
  readonly id: string;
  readonly start: number;
  readonly end: number;
  /** Which of the slots (0-based) ran it. */
  readonly slot: number;
}

/** The outcome of a simulation, in units (1 unit = 1 minute). */
export interface Simulation {
  /** When the last item ends. */
  readonly makespan: number;
  /** No schedule can beat max(critical path, total work ÷ slots), both from real durations. */
  readonly lowerBound: number;
  /** Every item once, by start time, then slot. */
  readonly timeline: readonly TimelineEntry[];
}

/** The graph with per-position real durations, priorities and the lower bound. */
interface Prepared {
  readonly graph: IndexedGraph;
  readonly durations: readonly number[];
  readonly ranks: readonly number[];
  readonly lowerBound: number;
}

function prepare({ nodes, slots, durations }: SimulationInput): Prepared {
  if (!Number.isInteger(slots) || slots < 1) {
    throw new RangeError(`simulation slots is ${slots}; use a whole number of at least 1`);
  }
  const graph = indexGraph(nodes);
  const ranks = ranksOf(nodes, graph);
  const real = nodes.map((node) => {
    const duration = durations?.get(node.id) ?? node.estimate;
    if (!Number.isFinite(duration) || duration < 0) {
      throw new WorkGraphError(`"${node.id}" has duration ${duration}; use a finite number >= 0`, node.id);
    }
    return duration;
  });
  // The bound must come from the real durations: the estimates only set priorities.
  const path = longestPaths(graph, real).reduce((a, b) => Math.max(a, b), 0);
  const work = real.reduce((sum, d) => sum + d, 0);
  return { graph, durations: real, ranks, lowerBound: Math.max(path, work / slots) };
}

/**
 * Critical-path list scheduling, as `nextToStart` does it: an item starts as soon as its
 * dependencies have ended and a slot is free (no barriers), highest rank first, ties in input
 * order; items ending at the same time all end before anything starts. Deterministic,
 * O((V + E) log V).
 *
 * @example
 * simulate({ nodes: [{ id: "a", estimate: 2, deps: [] }, { id: "b", estimate: 1, deps: ["a"] }], slots: 2 })
 * // { makespan: 3, lowerBound: 3, timeline: [{ id: "a", start: 0, end: 2, slot: 0 }, { id: "b", start: 2, end: 3, slot: 0 }] }
 * @throws {WorkGraphError} when the graph breaks the `WorkNode` contract.
 * @throws {RangeError} when `slots` is not a whole number of at least 1.
 */
export function simulate(input: SimulationInput): Simulation {
  const { graph, durations, ranks, lowerBound } = prepare(input);
  const rank = (i: number): number => ranks[i] ?? 0;
  // Per position: when it ends and on which slot (typed arrays keep the hot loop allocation-free).
  const ends = new Float64Array(durations.length);
  const slotOf = new Int32Array(durations.length);
  const end = (i: number): number => ends[i] ?? 0;
  const ready = createHeap<number>((a, b) => rank(a) > rank(b) || (rank(a) === rank(b) && a < b));
  const running = createHeap<number>((a, b) => end(a) < end(b) || (end(a) === end(b) && a < b));
  const free = createHeap<number>((a, b) => a < b);
  for (let slot = 0; slot < input.slots; slot++) free.push(slot);
  const waiting = graph.deps.map((d) => d.length);
  waiting.forEach((w, i) => w === 0 && ready.push(i));
  const timeline: TimelineEntry[] = [];
  let now = 0;
  for (;;) {
    while (ready.size > 0 && free.size > 0) {
      const at = ready.pop() ?? 0;
      const slot = free.pop() ?? 0;
      ends[at] = now + (durations[at] ?? 0);
      slotOf[at] = slot;
      timeline.push({ id: input.nodes[at]?.id ?? "", start: now, end: end(at), slot });
      running.push(at);
    }
    const next = running.peek();
    if (next === undefined) break;
    now = end(next);
    // Release everything that ends now before choosing, so the best newly ready item wins.
    while (running.size > 0 && end(running.peek() ?? 0) === now) {
      const done = running.pop() ?? 0;
      free.push(slotOf[done] ?? 0);
      for (const j of graph.dependents[done] ?? []) {
        const left = (waiting[j] ?? 0) - 1;
        waiting[j] = left;
        if (left === 0) ready.push(j);
      }
    }
  }
  // Zero-length items can free a lower slot at the same instant: keep the documented order.
  timeline.sort((a, b) => a.start - b.start || a.slot - b.slot);
  return { makespan: now, lowerBound, timeline };
}

/**
 * Wave-by-wave (barrier) scheduling, the naive alternative the benchmark measures against: wave 0
 * is every item without dependencies, wave k every item whose deepest dependency is in wave k − 1;
 * a wave starts when the previous one has entirely ended. Within a wave, highest rank first, each
 * item on the slot that frees first. Deterministic, O((V + E) log V).
 */
export function simulateWaves(input: SimulationInput): Simulation {
  const { graph, durations, ranks, lowerBound } = prepare(input);
  const waveOf = new Array<number>(durations.length).fill(0);
  for (const i of graph.order) {
    for (const d of graph.deps[i] ?? []) waveOf[i] = Math.max(waveOf[i] ?? 0, (waveOf[d] ?? 0) + 1);
  }
  const waves: number[][] = [];
  for (const i of graph.order) (waves[waveOf[i] ?? 0] ??= []).push(i);
  const timeline: TimelineEntry[] = [];
  let waveStart = 0;
  for (const wave of waves) {
    wave.sort((a, b) => (ranks[b] ?? 0) - (ranks[a] ?? 0) || a - b);
    const slots = createHeap<{ readonly slot: number; readonly freeAt: number }>((a, b) => a.freeAt < b.freeAt || (a.freeAt === b.freeAt && a.slot < b.slot));
    for (let slot = 0; slot < input.slots; slot++) slots.push({ slot, freeAt: waveStart });
    let waveEnd = waveStart;
    for (const at of wave) {
      const { slot, freeAt } = slots.pop() ?? { slot: 0, freeAt: waveStart };
      const end = freeAt + (durations[at] ?? 0);
      timeline.push({ id: input.nodes[at]?.id ?? "", start: freeAt, end, slot });
      slots.push({ slot, freeAt: end });
      waveEnd = Math.max(waveEnd, end);
    }
    waveStart = waveEnd;
  }
  timeline.sort((a, b) => a.start - b.start || a.slot - b.slot);
  return { makespan: waveStart, lowerBound, timeline };
}
