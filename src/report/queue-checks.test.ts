import { describe, expect, it } from "vitest";
import { at, checkpointed, integrated, item, missionAfter, planned, requested } from "../../test/support/mission-builders.ts";
import type { MissionEvent } from "../mission/index.ts";
import { baseMovedLine, queueCheckLines } from "./queue-checks.ts";
import { trackingComment } from "./tracking-comment.ts";
import { verdictComment } from "./verdict-comment.ts";

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

  it("says the base moved past a finished mission: how to refresh it, or that naruto is refreshing it", () => {
    const X = "1".repeat(40);
    const reviewed: MissionEvent = { type: "reviewed", at: at(9), verdict: "approve", summary: "ok", findings: [] };
    const done = missionAfter([requested(), planned([item("a")]), checkpointed("a"), integrated("a"), reviewed]);
    expect(baseMovedLine(done)).toBeNull();
    const m = missionAfter([requested(), planned([item("a")]), checkpointed("a"), integrated("a"), reviewed, { type: "base_moved", at: at(10), commit: X }]);
    const line = baseMovedLine(m) ?? "";
    expect(line).toContain("**Base moved:** `main` is at `1111111`, past this mission's base `bbbbbbb`");
    expect(line).toContain(m.source.kind === "github" ? "comment `/naruto refresh`" : `run \`naruto refresh ${m.id}\``);
    expect(trackingComment(m)).toContain(line);
    expect(verdictComment(m)).toContain(line);
    const asked = missionAfter([
      requested(),
      planned([item("a")]),
      checkpointed("a"),
      integrated("a"),
      reviewed,
      { type: "base_moved", at: at(10), commit: X },
      { type: "refresh_requested", at: at(10), onto: X, handover: false },
    ]);
    expect(baseMovedLine(asked)).toContain("naruto is replaying the queue onto it (`1111111`)");
  });
});
