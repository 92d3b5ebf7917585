/**
 * The contract every mission store adapter must keep (STYLE.md 3: one conformance suite run
 * against each adapter). Call it inside a test file with a factory for a fresh, empty store.
 */
import { describe, expect, it } from "vitest";
import type { MissionEvent } from "../../src/mission/events.ts";
import { applyEvent, MissionNotFoundError, type MissionStore } from "../../src/mission/store.ts";
import { step } from "../../src/mission/step.ts";
import { at, item, planned, requested } from "./mission-builders.ts";

export function describeStoreConformance(name: string, makeStore: () => Promise<MissionStore>, options: { concurrent?: number } = {}): void {
  const concurrent = options.concurrent ?? 50;

  describe(`${name}: mission store contract`, () => {
    it("loads nothing for an unknown mission", async () => {
      const store = await makeStore();
      expect(await store.load("m-nothing")).toBeNull();
      expect(await store.list()).toEqual([]);
    });

    it("saves a new mission and loads it back unchanged", async () => {
      const store = await makeStore();
      const { mission } = step(null, requested());
      const saved = await store.save(mission, null);
      expect(saved.ok).toBe(true);
      const loaded = await store.load(mission.id);
      expect(loaded?.mission).toEqual(mission);
      expect(await store.list()).toEqual([mission.id]);
    });

    it("refuses a save based on a version that is no longer current", async () => {
      const store = await makeStore();
      const first = step(null, requested());
      const v1 = await store.save(first.mission, null);
      if (!v1.ok) throw new Error("first save failed");
      expect(await store.save(first.mission, null)).toEqual({ ok: false, reason: "conflict" });
      const second = step(first.mission, planned([item("a")]));
      const v2 = await store.save(second.mission, v1.version);
      expect(v2.ok).toBe(true);
      expect(await store.save(second.mission, v1.version)).toEqual({ ok: false, reason: "conflict" });
      expect((await store.load(first.mission.id))?.mission.seq).toBe(second.mission.seq);
    });

    it("applies events through compare-and-swap and ignores a redelivery", async () => {
      const store = await makeStore();
      await applyEvent(store, "m-test1", requested());
      const r = await applyEvent(store, "m-test1", planned([item("a")]));
      expect(r.commands.map((c) => c.type)).toEqual(["start_attempts"]);
      const again = await applyEvent(store, "m-test1", planned([item("a")]));
      expect(again.duplicate).toBe(true);
      await expect(applyEvent(store, "m-nope", { type: "tick", at: at(1) })).rejects.toThrow(MissionNotFoundError);
    });

    it("discards a mission that never started, and a discard of a missing one is no error", async () => {
      const store = await makeStore();
      await applyEvent(store, "m-test1", requested());
      const other = requested();
      if (other.type !== "requested") throw new Error("requested() made another event");
      await applyEvent(store, "m-test2", { ...other, id: "m-test2", queue_branch: "naruto/m-test2" });
      await store.discard("m-test1");
      expect(await store.load("m-test1")).toBeNull();
      expect(await store.list()).toEqual(["m-test2"]);
      await store.discard("m-test1");
      // The same id may be requested again (a redelivered comment after a refusal).
      expect((await applyEvent(store, "m-test1", requested())).duplicate).toBe(false);
    });

    it(
      `loses no update when ${concurrent} writers save different events at once`,
      async () => {
        const store = await makeStore();
        const ids = Array.from({ length: concurrent }, (_, i) => `i${i}`);
        await applyEvent(store, "m-test1", requested({ max_parallel: concurrent }));
        await applyEvent(store, "m-test1", planned(ids.map((id) => item(id))));
        const events: MissionEvent[] = ids.map((id) => ({
          type: "attempt_started",
          at: at(2),
          item: id,
          attempt: 1,
          base: "b".repeat(40),
          runner: `runner-${id}`,
        }));
        await Promise.all(events.map((e) => applyEvent(store, "m-test1", e, { attempts: concurrent * 2 })));
        const final = (await store.load("m-test1"))?.mission;
        expect(final?.items.map((i) => i.attempts[0]?.runner)).toEqual(ids.map((id) => `runner-${id}`));
        // requested + planned + one save per event: nothing applied twice, nothing lost.
        expect(final?.seq).toBe(2 + concurrent);
      },
      HEAVY_TEST_TIMEOUT_MS,
    );
  });
}

/** Many writers racing on one machine: roomier than the default on a loaded runner (not a timing assertion). */
export const HEAVY_TEST_TIMEOUT_MS = 180_000;
