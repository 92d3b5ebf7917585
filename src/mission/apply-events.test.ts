import { describe, expect, it } from "vitest";
import type { Mission } from "./document.ts";
import type { MissionEvent } from "./events.ts";
import { applyEvents, type MissionStore } from "./store.ts";
import { at, finished, item, missionAfter, planned, requested } from "../../test/support/mission-builders.ts";

/** A store in memory that counts saves; `interfere` runs once before the next save, as a racing writer. */
function memoryStore(mission: Mission) {
  const state = { mission, version: 1, saves: 0, interfere: null as ((m: Mission) => Mission) | null };
  const store: MissionStore = {
    load: async () => ({ mission: state.mission, version: String(state.version) }),
    save: async (m, expected) => {
      if (state.interfere !== null) {
        state.mission = state.interfere(state.mission);
        state.version++;
        state.interfere = null;
      }
      if (expected !== String(state.version)) return { ok: false, reason: "conflict" };
      state.mission = m;
      state.version++;
      state.saves++;
      return { ok: true, version: String(state.version) };
    },
    list: async () => [state.mission.id],
    discard: async () => undefined,
  };
  return { store, state };
}

const started = (id: string, n = 1): MissionEvent => ({ type: "attempt_started", at: at(1), item: id, attempt: n, base: "b".repeat(40), runner: "run 7" });
const two = () => missionAfter([requested(), planned([item("a"), item("b")])]);

describe("applyEvents", () => {
  it("applies several events with one save, their commands in order", async () => {
    const { store, state } = memoryStore(two());
    const result = await applyEvents(store, state.mission.id, [started("a"), started("b")]);
    expect(state.saves).toBe(1);
    expect(result.outcomes).toEqual([{ kind: "applied" }, { kind: "applied" }]);
    expect(state.mission.items.map((i) => i.attempts[0]?.status)).toEqual(["running", "running"]);
  });

  it("leaves out an illegal event and applies the others, as one at a time would", async () => {
    const { store, state } = memoryStore(two());
    const result = await applyEvents(store, state.mission.id, [started("a"), finished("a", 7, { kind: "failed", reason: "x" }), started("b")]);
    expect(result.outcomes.map((o) => o.kind)).toEqual(["applied", "illegal", "applied"]);
    expect(state.saves).toBe(1);
    expect(state.mission.items.map((i) => i.attempts[0]?.status)).toEqual(["running", "running"]);
  });

  it("writes nothing when nothing applies", async () => {
    const { store, state } = memoryStore(two());
    await applyEvents(store, state.mission.id, [started("a")]);
    const result = await applyEvents(store, state.mission.id, [started("a"), finished("a", 7, { kind: "failed", reason: "x" })]);
    expect(result.outcomes.map((o) => o.kind)).toEqual(["duplicate", "illegal"]);
    expect(state.saves).toBe(1);
  });

  it("applies them all again to the newer mission when another writer saved first, losing neither", async () => {
    const { store, state } = memoryStore(two());
    // The other writer starts `a` first; this batch then finds it applied (a duplicate) and starts `b`.
    state.interfere = (m) => {
      const copy = structuredClone(m);
      const attempt = copy.items[0]!.attempts[0]!;
      Object.assign(attempt, { status: "running", started_at: at(1), base: "b".repeat(40), runner: "run 7" });
      return copy;
    };
    const result = await applyEvents(store, state.mission.id, [started("a"), started("b")], { backoff: async () => undefined });
    expect(result.outcomes.map((o) => o.kind)).toEqual(["duplicate", "applied"]);
    expect(state.saves).toBe(1);
    expect(state.mission.items.map((i) => i.attempts[0]?.status)).toEqual(["running", "running"]);
  });
});
