import { describe, expect, it } from "vitest";
import { recallSweep, settled, type SweepMemory } from "./sweep-memory.ts";

const DAY = 24 * 60 * 60_000;
const now = new Date("2026-12-02T12:00:00Z");
const memory: SweepMemory = {
  text: "{}",
  ended: new Map([
    ["m-recent", { version: "v1", updated_at: "2026-12-01T12:00:00Z", cleaned: false }],
    ["m-old", { version: "v2", updated_at: "2026-11-01T12:00:00Z", cleaned: false }],
    ["m-cleaned", { version: "v3", updated_at: "2026-11-01T12:00:00Z", cleaned: true }],
  ]),
};

describe("the sweep's memory of ended missions", () => {
  it("leaves alone an ended mission at the version it saw, until its retention passes, and a cleaned one for good", () => {
    expect(settled(memory, "m-recent", "v1", now, 7 * DAY)).not.toBeNull();
    expect(settled(memory, "m-old", "v2", now, 7 * DAY)).toBeNull();
    expect(settled(memory, "m-cleaned", "v3", now, 7 * DAY)).not.toBeNull();
  });

  it("loads again a mission whose state moved, or that it never saw", () => {
    expect(settled(memory, "m-recent", "v9", now, 7 * DAY)).toBeNull();
    expect(settled(memory, "m-new", "v1", now, 7 * DAY)).toBeNull();
  });

  it("reads a record that is not naruto's, or entries it cannot use, as no record", async () => {
    const reading = (text: string | null) => recallSweep({ getRef: async () => (text === null ? null : "c1"), readFile: async () => text });
    expect((await reading(null)).ended.size).toBe(0);
    expect((await reading("not json")).ended.size).toBe(0);
    expect((await reading("[1,2]")).ended.size).toBe(0);
    const mixed = await reading(
      JSON.stringify({ "m-a": { version: "v", updated_at: "2026-12-01T00:00:00Z", cleaned: true }, "m-b": { version: 3 }, "m-c": null }),
    );
    expect([...mixed.ended.keys()]).toEqual(["m-a"]);
  });
});
