import { describe, expect, it } from "vitest";
import { at, checkpointed, integrated, item, missionAfter, planned, requested, run } from "../../test/support/mission-builders.ts";
import type { BaseCheck, MissionEvent } from "./index.ts";

const BASE = "b".repeat(40);
const redBase: BaseCheck = { commit: BASE, command: "npm test", green: false, exit_code: 1, output: "1 failing\n", report: null, runs: [false, false] };

describe("the queue's checks on the mission", () => {
  it("a flaky suspect goes back to wait for the queue, blamed for nothing, and the flip is kept", () => {
    const flaky: MissionEvent = {
      type: "integrated",
      at: at(6),
      queue_head: BASE,
      verify_runs: 3,
      results: [{ kind: "flaky", item: "a", attempt: 1, candidate: "c".repeat(40), runs: [false, true], output: "flake\n" }],
    };
    const results = run([requested(), planned([item("a")]), checkpointed("a"), flaky]);
    const last = results.at(-1);
    expect(last?.mission.items[0]).toMatchObject({ status: "checkpointed", reason: null });
    expect(last?.mission.items[0]?.attempts.map((a) => a.status)).toEqual(["integrating"]);
    expect(last?.mission.queue.flips).toEqual([{ at: at(6), commit: "c".repeat(40), item: "a", attempt: 1, runs: [false, true] }]);
    // It goes to the queue again at once.
    expect(last?.commands).toContainEqual({ type: "integrate", checkpoints: [{ item: "a", attempt: 1, commit: "c-a-1", base: BASE }] });
  });

  it("a halt cancels every item not integrated, checkpoints included, and fails the mission with the reason", () => {
    const halt: MissionEvent = {
      type: "integrated",
      at: at(6),
      queue_head: BASE,
      verify_runs: 1,
      results: [],
      base_check: redBase,
      halt: "the base is red: …",
    };
    const results = run([requested(), planned([item("a"), item("b")]), checkpointed("a"), halt]);
    const last = results.at(-1);
    expect(last?.mission).toMatchObject({ status: "failed", reason: "the base is red: …" });
    expect(last?.mission.queue.base_check).toEqual(redBase);
    expect(last?.mission.items.map((i) => [i.id, i.status, i.reason])).toEqual([
      ["a", "cancelled", "not integrated: the base is red: …"],
      ["b", "cancelled", "not integrated: the base is red: …"],
    ]);
    expect(last?.commands).toEqual([
      { type: "cancel_attempts", attempts: [{ item: "b", attempt: 1 }] },
      { type: "report" },
      { type: "finish", status: "failed" },
    ]);
  });

  it("records each batch that moved the queue with what its tests did", () => {
    const report = { tests: 3, failed: 0, skipped: 1, files: [{ file: "test/a.test.js", tests: 3, failed: 0, skipped: 1 }], failures: [] };
    const event = { ...integrated("a"), report } as MissionEvent;
    const m = missionAfter([requested(), planned([item("a")]), checkpointed("a"), event]);
    expect(m.queue.batches).toEqual([{ at: at(6), head: "q-a", items: ["a"], tests: { tests: 3, failed: 0, skipped: 1 } }]);
    expect(m.queue.report).toEqual(report);
  });
});
