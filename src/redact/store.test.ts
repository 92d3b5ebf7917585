/**
 * The redacting store redacts every string it saves, and redacts an unchanged item (the same
 * object as at the previous save) only once: it hands the store the same redacted object again,
 * so that the local store keeps that item's record instead of writing it again.
 */
import { describe, expect, it } from "vitest";
import type { Mission } from "../mission/index.ts";
import type { MissionStore } from "../mission/index.ts";
import { step } from "../mission/index.ts";
import { item, planned, requested } from "../../test/support/mission-builders.ts";
import { createRedactor } from "./redactor.ts";
import { redactingStore } from "./store.ts";

const SECRET = "s3cr3t-t0k3n-value-0123456789";

function recordingStore(): { store: MissionStore; saved: Mission[] } {
  const saved: Mission[] = [];
  return {
    saved,
    store: {
      load: () => Promise.resolve(null),
      save: (mission) => {
        saved.push(mission);
        return Promise.resolve({ ok: true, version: String(saved.length) });
      },
      list: () => Promise.resolve([]),
      discard: () => Promise.resolve(),
    },
  };
}

describe("redactingStore", () => {
  it("redacts every field, in the document's order, and each unchanged item only once", async () => {
    const { store, saved } = recordingStore();
    const redacting = redactingStore(store, createRedactor({ secrets: [SECRET] }));
    const first = step(step(null, requested()).mission, planned([item("a", [], { prompt: `use ${SECRET}` }), item("b")])).mission;
    const second = step(first, { type: "attempt_started", at: first.updated_at, item: "a", attempt: 1, base: "b".repeat(40), runner: `pid ${SECRET}` }).mission;
    await redacting.save(first, null);
    await redacting.save(second, "1");
    const [one, two] = saved;
    expect(JSON.stringify(saved)).not.toContain(SECRET);
    expect(Object.keys(one ?? {})).toEqual(Object.keys(first));
    expect(two?.items[1]).toBe(one?.items[1]); // b did not change: the same redacted object
    expect(two?.items[0]).not.toBe(one?.items[0]);
    expect(two?.proof).toBe(one?.proof);
  });
});
