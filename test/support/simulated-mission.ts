/**
 * A whole mission driven through the engine with no git and no agents: the events a driver
 * would feed back (`attempt_started`, a checkpoint, the queue's `integrated`, clock ticks, the
 * review) for every command the engine gives. Used by the engine benchmark (bench/engine.ts) and
 * by the test that steps a deep-frozen mission from request to verdict.
 */
import type { Mission } from "../../src/mission/document.ts";
import type { CheckpointOrder, MissionEvent, PlannedItem } from "../../src/mission/events.ts";
import type { StepResult } from "../../src/mission/step.ts";
import { computeRanks } from "../../src/plan/ranks.ts";
import { requested, settings, T0 } from "./mission-builders.ts";

/** `count` items, each after up to two of the 32 before it (seeded: the same graph every run). */
export function simulatedPlan(count: number, seed = 1): PlannedItem[] {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const id = (i: number) => `item-${String(i).padStart(5, "0")}`;
  const nodes = Array.from({ length: count }, (_, i) => {
    const deps = new Set<string>();
    for (let k = 0; k < 2 && i > 0; k++) if (random() < 0.5) deps.add(id(Math.max(0, i - 1 - Math.floor(random() * 32))));
    return { id: id(i), estimate: 1 + Math.floor(random() * 5), deps: [...deps] };
  });
  const ranks = computeRanks(nodes);
  return nodes.map((n) => ({
    id: n.id,
    title: `Work on ${n.id}`,
    prompt: `Change the files of ${n.id} as the plan says.`,
    writes: [`src/${n.id}/`],
    reads: ["src/shared/"],
    after: n.deps,
    added_after: [],
    agent: "default",
    verify: null,
    estimate: n.estimate,
    readonly: false,
    rank: ranks.get(n.id) ?? 0,
    tests: null,
  }));
}

const hex = (n: number) => n.toString(16).padStart(40, "0");

/**
 * Runs a mission of `items` to its verdict: every event goes through `apply` (a bare `step`, or
 * `applyEvent` on a store), first in, first out, as the local driver feeds them. Returns the
 * last mission and how many events were applied.
 */
export async function runSimulatedMission(input: {
  readonly items: readonly PlannedItem[];
  readonly apply: (event: MissionEvent) => StepResult | Promise<StepResult>;
  readonly maxParallel?: number;
  readonly batch?: number;
}): Promise<{ mission: Mission; events: number }> {
  const batch = input.batch ?? 8;
  const start = requested({ max_parallel: input.maxParallel ?? 4, batch, max_attempts: 1 });
  const queue: MissionEvent[] = [start];
  let clock = 0;
  const now = () => new Date(Date.parse(T0) + ++clock * 1000).toISOString();
  let head = 0;
  let events = 0;
  let mission: Mission | null = null;
  const integrate = (checkpoints: readonly CheckpointOrder[]) => {
    for (let i = 0; i < checkpoints.length; i += batch) {
      head += 1;
      queue.push({
        type: "integrated",
        at: now(),
        queue_head: hex(head),
        verify_runs: 1,
        results: checkpoints.slice(i, i + batch).map((c) => ({
          kind: "integrated" as const,
          item: c.item,
          attempt: c.attempt,
          commit: hex(1e9 + head * 1000 + i),
          changed: [`src/${c.item}/index.ts`],
        })),
      });
    }
  };
  for (let e = queue.shift(); e !== undefined; e = queue.shift()) {
    const result = await input.apply(e);
    events += 1;
    mission = result.mission;
    if (events % 16 === 0) queue.push({ type: "tick", at: now() });
    for (const c of result.commands) {
      if (c.type === "plan")
        queue.push({ type: "planned", at: now(), title: "A simulated plan", items: [...input.items], proof: { schema: "naruto.proof/v1" } });
      else if (c.type === "start_attempts") {
        for (const o of c.attempts) {
          queue.push({ type: "attempt_started", at: now(), item: o.item, attempt: o.attempt, base: hex(head), runner: "pid 1" });
          queue.push({
            type: "attempt_finished",
            at: now(),
            item: o.item,
            attempt: o.attempt,
            outcome: { kind: "checkpointed", commit: hex(2e9 + events), base: hex(head), changed: [`src/${o.item}/index.ts`] },
            summary: `Changed src/${o.item}/index.ts`,
            cost_usd: 0.01,
            tokens_in: 1000,
            tokens_out: 100,
            model: "simulated",
          });
        }
      } else if (c.type === "integrate") integrate(c.checkpoints);
      else if (c.type === "review") queue.push({ type: "reviewed", at: now(), verdict: "approve", summary: "All good.", findings: [] });
    }
  }
  if (mission === null) throw new Error("the simulated mission never started");
  return { mission, events };
}

/** Settings of {@link runSimulatedMission}'s missions, for tests that build their own. */
export const SIMULATED_SETTINGS = settings({ max_attempts: 1 });
