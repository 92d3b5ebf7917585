/**
 * `base_moved` (issue 37): a finished mission whose base branch moved past its base records the
 * branch's head, once per head, until a refresh lands; the comments read it (report/queue-checks.test.ts).
 */
import { describe, expect, it } from "vitest";
import { at, checkpointed, integrated, item, missionAfter, planned, requested } from "../../test/support/mission-builders.ts";
import { IllegalEventError } from "./errors.ts";
import type { MissionEvent } from "./events.ts";
import { step } from "./step.ts";

const X = "1".repeat(40);
const Y = "2".repeat(40);
const moved = (commit: string): MissionEvent => ({ type: "base_moved", at: at(10), commit });
const reviewing = () => missionAfter([requested(), planned([item("a")]), checkpointed("a"), integrated("a")]);
const done = () => step(reviewing(), { type: "reviewed", at: at(9), verdict: "approve", summary: "ok", findings: [] }).mission;

describe("base_moved", () => {
  it("records the base branch's head of a finished mission, once per head", () => {
    const r = step(done(), moved(X));
    expect(r.duplicate).toBe(false);
    expect(r.commands).toEqual([]);
    expect(r.mission.status).toBe("done");
    expect(r.mission.queue.base_moved).toEqual({ commit: X, at: at(10) });
    expect(step(r.mission, moved(X)).duplicate).toBe(true);
    expect(step(r.mission, moved(Y)).mission.queue.base_moved?.commit).toBe(Y);
  });

  it("is refused before the end, and for the base the mission stands on", () => {
    expect(() => step(reviewing(), moved(X))).toThrow(IllegalEventError);
    const m = done();
    expect(() => step(m, moved(m.base.commit))).toThrow(/did not move/);
  });

  it("ends when a refresh lands", () => {
    const m = step(done(), moved(X)).mission;
    const refreshed: MissionEvent = {
      type: "refreshed",
      at: at(11),
      base: { ref: m.base.ref, commit: X },
      from: m.base.commit,
      queue_head: "q-refreshed",
      verify_runs: 1,
      results: [{ kind: "integrated", item: "a", attempt: 1, commit: "q-refreshed", changed: [] }],
      skipped: [],
      base_check: null,
      report: null,
    };
    const after = step(m, refreshed).mission;
    expect(after.queue.base_moved).toBeNull();
  });
});
