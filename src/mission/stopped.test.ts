/**
 * `stopped`: nothing more can be done for a mission where it runs (GitHub refuses every new
 * worker branch once the default branch changed a workflow file). Like a cap: nothing new starts,
 * attempts in flight are cancelled, a checkpoint on its way still integrates, and what is
 * integrated is reviewed. The attempt GitHub refused ends `permanent` (cause `refused`) first.
 */
import { describe, expect, it } from "vitest";
import type { MissionEvent } from "./events.ts";
import { step } from "./step.ts";
import { at, checkpointed, finished, integrated, item, missionAfter, planned, requested, statusOf } from "../../test/support/mission-builders.ts";

const REASON = "stopped: GitHub refuses every new branch of this mission";
const stopped: MissionEvent = { type: "stopped", at: at(7), reason: REASON };
const refused = (id: string) => finished(id, 1, { kind: "permanent", cause: "refused", reason: "the checkpoint could not be pushed", work: null }, 6);

describe("a mission stopped", () => {
  it("starts nothing more, cancels what runs, lets a checkpoint integrate and reviews what was integrated", () => {
    const m = missionAfter([requested({ max_parallel: 2 }), planned([item("a"), item("b"), item("c"), item("d", ["c"])]), checkpointed("a"), refused("b")]);
    // b failed for good: no retry was started for it; c runs, d waits for c.
    expect(m.items.map((i) => [i.id, i.status, i.attempts.length])).toEqual([
      ["a", "checkpointed", 1],
      ["b", "failed", 1],
      ["c", "running", 1],
      ["d", "pending", 0],
    ]);
    const r = step(m, stopped);
    expect(r.commands).toEqual([{ type: "cancel_attempts", attempts: [{ item: "c", attempt: 1 }] }]);
    expect(r.mission.reason).toBe(REASON);
    expect(r.mission.status).toBe("running");
    expect(["a", "b", "c", "d"].map((id) => statusOf(r.mission, id))).toEqual(["checkpointed", "failed", "cancelled", "cancelled"]);
    const done = step(r.mission, integrated("a"));
    expect(statusOf(done.mission, "a")).toBe("integrated");
    expect(done.mission.status).toBe("reviewing");
    expect(done.commands.map((c) => c.type)).toEqual(["review"]);
  });

  it("is applied once: a second stop, or one after the review, changes nothing", () => {
    const m = missionAfter([requested(), planned([item("a"), item("b")]), stopped]);
    expect(step(m, { ...stopped, at: at(8) }).duplicate).toBe(true);
    const reviewed = missionAfter([
      requested(),
      planned([item("a")]),
      refused("a"),
      stopped,
      { type: "reviewed", at: at(9), verdict: "request_changes", summary: "", findings: [] },
    ]);
    expect(reviewed.reason).toBe(REASON);
    expect(step(reviewed, stopped).duplicate).toBe(true);
  });

  it("records its reason when the refused attempt was the last one (the mission went to review with it)", () => {
    const m = missionAfter([requested({ max_attempts: 3 }), planned([item("a")]), refused("a")]);
    expect(m.status).toBe("reviewing");
    const r = step(m, stopped);
    expect(r.mission.reason).toBe(REASON);
    expect(r.commands).toEqual([]);
  });
});
