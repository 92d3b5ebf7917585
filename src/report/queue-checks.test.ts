import { describe, expect, it } from "vitest";
import { at, checkpointed, integrated, item, missionAfter, planned, requested } from "../../test/support/mission-builders.ts";
import type { MissionEvent } from "../mission/index.ts";
import { queueCheckLines } from "./queue-checks.ts";
import { trackingComment } from "./tracking-comment.ts";

describe("what the queue learned, rendered", () => {
  it("says nothing for a mission without a verify", () => {
    expect(queueCheckLines(missionAfter([requested(), planned([item("a")])]))).toEqual([]);
  });

  it("shows the base, the flips, the tests at the head and the allowance to weaken tests", () => {
    const report = { tests: 5, failed: 0, skipped: 1, files: [], failures: [] };
    const base = { commit: "b".repeat(40), command: "npm test", green: true, exit_code: 0, output: "", report, runs: [false, true] };
    const flip: MissionEvent = {
      type: "integrated",
      at: at(6),
      queue_head: "b".repeat(40),
      verify_runs: 3,
      results: [{ kind: "flaky", item: "a", attempt: 1, candidate: "c".repeat(40), runs: [false, true], output: "" }],
      base_check: base,
    };
    const m = missionAfter([
      requested(),
      planned([item("a", [], { tests: "may_weaken" })]),
      checkpointed("a"),
      flip,
      { ...integrated("a"), report } as MissionEvent,
    ]);
    const lines = queueCheckLines(m);
    expect(lines[0]).toBe("**Base:** `bbbbbbb` verified green before the first batch (red, green).");
    expect(lines[1]).toContain("**Flaky verify:** flipped 2 time(s)");
    expect(lines[1]).toContain("(a, the base)");
    expect(lines[2]).toBe("**Tests** at the queue head: 4 run, 0 failed, 1 skipped.");
    expect(trackingComment(m)).toContain("integrated (may weaken tests)");
  });
});
