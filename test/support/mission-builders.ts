/**
 * Builders for missions and events in tests (STYLE.md 9: builders, not casts). Kept beside the
 * engine so every test of the mission speaks the same language.
 */
import type { Mission, MissionSettings } from "../../src/mission/document.ts";
import type { AttemptOutcome, MissionEvent, PlannedItem } from "../../src/mission/events.ts";
import { step, type StepResult } from "../../src/mission/step.ts";

export const T0 = "2026-01-01T00:00:00.000Z";

/** A time `minutes` after {@link T0}. */
export function at(minutes: number): string {
  return new Date(Date.parse(T0) + minutes * 60_000).toISOString();
}

export function settings(overrides: Partial<MissionSettings> = {}): MissionSettings {
  return {
    max_parallel: 4,
    max_attempts: 2,
    item_timeout_ms: 30 * 60_000,
    queue_timeout_ms: 2 * 60 * 60_000,
    mission_timeout_ms: 6 * 60 * 60_000,
    batch: 8,
    approval: false,
    max_cost_usd: null,
    strict: false,
    ...overrides,
  };
}

export function requested(overrides: Partial<MissionSettings> = {}): MissionEvent {
  return {
    type: "requested",
    at: T0,
    id: "m-test1",
    task: "do the thing",
    source: { kind: "local", cwd: "/repo" },
    base: { ref: "main", commit: "b".repeat(40) },
    queue_branch: "naruto/m-test1",
    settings: settings(overrides),
  };
}

/** A planned item; `after` ids are declared dependencies. */
export function item(id: string, after: string[] = [], extra: Partial<PlannedItem> = {}): PlannedItem {
  return {
    id,
    title: `Work on ${id}`,
    prompt: `Work on ${id}`,
    writes: [`src/${id}/`],
    reads: [],
    after,
    added_after: [],
    agent: "default",
    verify: null,
    estimate: 1,
    readonly: false,
    rank: 1,
    tests: null,
    ...extra,
  };
}

export function planned(items: PlannedItem[]): MissionEvent {
  return { type: "planned", at: at(1), title: "A plan", items, proof: { schema: "naruto.proof/v1" } };
}

export function finished(itemId: string, attempt: number, outcome: AttemptOutcome, minutes = 5): MissionEvent {
  return { type: "attempt_finished", at: at(minutes), item: itemId, attempt, outcome };
}

/** The attempt's run was dispatched (on GitHub: the run that will hold its job); its clock has not started. */
export function dispatched(itemId: string, attempt: number, minutes: number, runner = "https://github.com/acme/demo/actions/runs/7"): MissionEvent {
  return { type: "attempt_dispatched", at: at(minutes), item: itemId, attempt, base: "b".repeat(40), runner };
}

/** The attempt's job started (on GitHub: a runner took it): its clock starts. */
export function started(itemId: string, attempt: number, minutes: number, runner = "https://github.com/acme/demo/actions/runs/7"): MissionEvent {
  return { type: "attempt_started", at: at(minutes), item: itemId, attempt, base: "b".repeat(40), runner };
}

export function checkpointed(itemId: string, attempt = 1): MissionEvent {
  return finished(itemId, attempt, { kind: "checkpointed", commit: commitOf(itemId, attempt), base: "b".repeat(40), changed: [`src/${itemId}/x.ts`] });
}

export function integrated(itemId: string, attempt = 1, head = `q-${itemId}`): MissionEvent {
  return {
    type: "integrated",
    at: at(6),
    queue_head: head,
    verify_runs: 1,
    results: [{ kind: "integrated", item: itemId, attempt, commit: `queue-${itemId}`, changed: [`src/${itemId}/x.ts`] }],
  };
}

export function commitOf(itemId: string, attempt: number): string {
  return `c-${itemId}-${attempt}`;
}

/** Applies events in order from no mission; returns every step's result. */
export function run(events: MissionEvent[], from: Mission | null = null): StepResult[] {
  const results: StepResult[] = [];
  let mission = from;
  for (const e of events) {
    const r = step(mission, e);
    results.push(r);
    mission = r.mission;
  }
  return results;
}

/** The mission after all events. */
export function missionAfter(events: MissionEvent[]): Mission {
  const results = run(events);
  const last = results.at(-1);
  if (!last) throw new Error("no events");
  return last.mission;
}

export function statusOf(m: Mission, id: string): string {
  return m.items.find((i) => i.id === id)?.status ?? "missing";
}
