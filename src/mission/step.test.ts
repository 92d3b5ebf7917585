import { describe, expect, it } from "vitest";
import { IllegalEventError } from "./errors.ts";
import type { AttemptOutcome } from "./events.ts";
import { step } from "./step.ts";
import {
  at,
  checkpointed,
  dispatched,
  finished,
  integrated,
  item,
  missionAfter,
  planned,
  requested,
  run,
  started,
  statusOf,
} from "../../test/support/mission-builders.ts";

const commandTypes = (r: { commands: readonly { type: string }[] }) => r.commands.map((c) => c.type);

describe("step: requested and planned", () => {
  it("creates a planning mission that asks for a plan", () => {
    const [r] = run([requested()]);
    expect(r?.mission.status).toBe("planning");
    expect(r?.mission.queue.head).toBe("b".repeat(40));
    expect(commandTypes(r!)).toEqual(["plan"]);
  });

  it("treats a second `requested` for the same mission as a redelivery", () => {
    const [, r] = run([requested(), requested()]);
    expect(r?.duplicate).toBe(true);
    expect(r?.commands).toEqual([]);
  });

  it("rejects a request with bad settings, naming the field", () => {
    expect(() => step(null, requested({ max_parallel: 0 }))).toThrow(/settings\.max_parallel/);
  });

  it("starts the items with no dependencies, highest rank first", () => {
    const results = run([requested(), planned([item("a", [], { rank: 1 }), item("b", [], { rank: 3 }), item("c", ["a"])])]);
    const r = results[1]!;
    expect(r.mission.status).toBe("running");
    expect(r.commands).toEqual([
      {
        type: "start_attempts",
        attempts: [
          { item: "b", attempt: 1, previousFailure: null },
          { item: "a", attempt: 1, previousFailure: null },
        ],
      },
    ]);
    expect(statusOf(r.mission, "c")).toBe("pending");
  });

  it("respects max_parallel and marks the rest ready", () => {
    const m = missionAfter([requested({ max_parallel: 1 }), planned([item("a"), item("b")])]);
    expect(statusOf(m, "a")).toBe("running");
    expect(statusOf(m, "b")).toBe("ready");
  });

  it("waits for approval when the settings ask for it", () => {
    const results = run([requested({ approval: true }), planned([item("a")])]);
    expect(results[1]?.mission.status).toBe("awaiting_approval");
    expect(commandTypes(results[1]!)).toEqual(["report"]);
    const approved = step(results[1]!.mission, { type: "approved", at: at(2), by: "octo" });
    expect(approved.mission.status).toBe("running");
    expect(commandTypes(approved)).toEqual(["start_attempts"]);
    expect(step(approved.mission, { type: "approved", at: at(3), by: "octo" }).duplicate).toBe(true);
  });

  it("fails the mission when planning fails", () => {
    const r = run([requested(), { type: "planning_failed", at: at(1), reason: "the planner wrote no plan" }])[1]!;
    expect(r.mission.status).toBe("failed");
    expect(r.mission.reason).toContain("the planner wrote no plan");
    expect(r.commands).toEqual([{ type: "report" }, { type: "finish", status: "failed" }]);
  });
});

describe("step: agent_exited", () => {
  const started = (id: string) => ({ type: "attempt_started" as const, at: at(2), item: id, attempt: 1, base: "b".repeat(40), runner: "pid 1" });
  const exited = (id: string) => ({ type: "agent_exited" as const, at: at(3), item: id, attempt: 1 });

  it("frees the agent's slot for the next ready item while the attempt still runs", () => {
    const m = missionAfter([requested({ max_parallel: 1 }), planned([item("a"), item("b")]), started("a")]);
    expect(statusOf(m, "b")).toBe("ready");
    const r = step(m, exited("a"));
    expect(statusOf(r.mission, "a")).toBe("running");
    expect(r.mission.items[0]?.attempts[0]?.exited_at).toBe(at(3));
    expect(r.commands).toEqual([{ type: "start_attempts", attempts: [{ item: "b", attempt: 1, previousFailure: null }] }]);
    // The slot it freed is taken: the attempt's end starts nothing more.
    const done = step(r.mission, checkpointed("a"));
    expect(commandTypes(done)).toEqual(["integrate"]);
  });

  it("is a redelivery when seen twice or after the attempt's end, and illegal for an attempt that never ran", () => {
    const m = missionAfter([requested({ max_parallel: 1 }), planned([item("a"), item("b")]), started("a"), exited("a")]);
    expect(step(m, exited("a")).duplicate).toBe(true);
    expect(step(step(m, checkpointed("a")).mission, exited("a")).duplicate).toBe(true);
    expect(() => step(m, { type: "agent_exited", at: at(3), item: "a", attempt: 2 })).toThrow(IllegalEventError);
  });
});

describe("step: attempts", () => {
  const base = () => missionAfter([requested(), planned([item("a"), item("b", ["a"])])]);

  it("records a start, then a checkpoint, and asks for integration", () => {
    const r = run([{ type: "attempt_started", at: at(2), item: "a", attempt: 1, base: "b".repeat(40), runner: "pid 1" }, checkpointed("a")], base());
    expect(r[0]?.mission.items[0]?.attempts[0]?.status).toBe("running");
    const m = r[1]!.mission;
    expect(statusOf(m, "a")).toBe("checkpointed");
    expect(r[1]!.commands).toEqual([{ type: "integrate", checkpoints: [{ item: "a", attempt: 1, commit: "c-a-1", base: "b".repeat(40) }] }]);
  });

  it("remembers that an attempt's agent ran as root without a sandbox, for the arbiter; a redelivery changes nothing", () => {
    const asRoot = { ...checkpointed("a"), agents_as_root: true };
    const r = run([{ type: "attempt_started", at: at(2), item: "a", attempt: 1, base: "b".repeat(40), runner: "pid 1" }, asRoot], base());
    expect(base().agents_as_root).toBe(false);
    expect(r[1]?.mission.agents_as_root).toBe(true);
    const req = requested();
    expect(missionAfter([req.type === "requested" ? { ...req, agents_as_root: true } : req]).agents_as_root).toBe(true);
  });

  it("starts a dependent only once its dependency is integrated", () => {
    const r = run([checkpointed("a"), integrated("a")], base());
    expect(statusOf(r[0]!.mission, "b")).toBe("pending");
    expect(statusOf(r[1]!.mission, "b")).toBe("running");
    expect(r[1]!.mission.queue.head).toBe("q-a");
    expect(r[1]!.mission.items[0]?.commit).toBe("queue-a");
  });

  it("retries a failed attempt with the failure in the next prompt", () => {
    const r = run([finished("a", 1, { kind: "failed", reason: "agent exited with code 3" })], base())[0]!;
    expect(r.commands).toEqual([{ type: "start_attempts", attempts: [{ item: "a", attempt: 2, previousFailure: "attempt 1: agent exited with code 3" }] }]);
  });

  it.each<[AttemptOutcome, string]>([
    [{ kind: "failed", reason: "crash" }, "failed"],
    [{ kind: "timed_out", reason: "timed out" }, "timed_out"],
    [{ kind: "out_of_scope", paths: ["etc/x"] }, "out_of_scope"],
    [{ kind: "no_changes" }, "failed"],
  ])("an item failing for good (%j) skips its dependents with the reason", (outcome, status) => {
    const r = run([finished("a", 1, outcome), finished("a", 2, outcome)], base());
    const m = r[1]!.mission;
    expect(statusOf(m, "a")).toBe(status);
    expect(statusOf(m, "b")).toBe("skipped");
    expect(m.items[1]?.reason).toBe(`dependency "a" failed (${status})`);
    expect(m.status).toBe("reviewing");
    expect(commandTypes(r[1]!)).toEqual(["review"]);
  });

  it.each([
    ["not_found", "exited with code 127: my-agent.sh: not found inside the sandbox"],
    ["authentication", "Claude Code refused its credentials"],
    ["config", 'unknown agent profile "fast"'],
  ] as const)("fails an item at once on a permanent failure (%s): no retry, its dependents skipped", (cause, reason) => {
    const r = run([finished("a", 1, { kind: "permanent", cause, reason })], base())[0]!;
    const m = r.mission;
    expect(statusOf(m, "a")).toBe("failed");
    expect(m.items[0]?.reason).toBe(reason);
    expect(m.items[0]?.attempts.map((x) => x.status)).toEqual(["failed"]);
    expect(statusOf(m, "b")).toBe("skipped");
    expect(m.status).toBe("reviewing");
    expect(commandTypes(r)).toEqual(["review"]);
  });

  it("retries an item that failed permanently when asked to, once the cause is fixed", () => {
    const m = run([finished("a", 1, { kind: "permanent", cause: "authentication", reason: "no key" })], base())[0]!.mission;
    const r = step(m, { type: "retry_requested", at: at(7), target: "a" });
    expect(r.commands).toEqual([{ type: "start_attempts", attempts: [{ item: "a", attempt: 2, previousFailure: "attempt 1: no key" }] }]);
  });

  it("does not count an interrupted runner against the attempts", () => {
    const r = run([finished("a", 1, { kind: "interrupted", reason: "runner killed" }), finished("a", 2, { kind: "failed", reason: "x" })], base());
    expect(r[0]!.commands).toEqual([{ type: "start_attempts", attempts: [{ item: "a", attempt: 2, previousFailure: null }] }]);
    expect(commandTypes(r[1]!)).toEqual(["start_attempts"]);
  });

  it("completes a read-only item that changed nothing", () => {
    const m = missionAfter([requested(), planned([item("look", [], { writes: [], readonly: true })]), finished("look", 1, { kind: "no_changes" })]);
    expect(statusOf(m, "look")).toBe("integrated");
    expect(m.status).toBe("reviewing");
  });

  it.each([
    ["an item that does not exist", finished("zz", 1, { kind: "no_changes" }), /no item "zz"/],
    ["an attempt that never ran", finished("a", 2, { kind: "no_changes" }), /no attempt 2/],
    ["integration of an item that never ran", integrated("b"), /no attempt 1/],
  ])("rejects %s and changes nothing", (_name, event, message) => {
    const m = base();
    const before = JSON.stringify(m);
    expect(() => step(m, event)).toThrow(IllegalEventError);
    expect(() => step(m, event)).toThrow(message);
    expect(JSON.stringify(m)).toBe(before);
  });

  it("rejects integration of an attempt that has no checkpoint", () => {
    expect(() => step(base(), integrated("a"))).toThrow(/no checkpoint waiting/);
  });

  it("ignores a redelivered finish and a redelivered integration", () => {
    const r = run([checkpointed("a"), checkpointed("a"), integrated("a"), integrated("a")], base());
    expect(r[1]!.duplicate).toBe(true);
    expect(r[3]!.duplicate).toBe(true);
    expect(r[3]!.mission.seq).toBe(r[2]!.mission.seq);
  });

  it("retries a conflicted checkpoint, and fails an item whose queue verification failed", () => {
    const m = run([checkpointed("a")], base())[0]!.mission;
    const conflicted = step(m, {
      type: "integrated",
      at: at(6),
      queue_head: "b".repeat(40),
      verify_runs: 0,
      results: [{ kind: "conflicted", item: "a", attempt: 1, paths: ["src/a/x.ts"] }],
    });
    // Conflicted, then retried at once from the current queue head with the conflict in the prompt.
    expect(conflicted.mission.items[0]?.attempts[0]?.status).toBe("conflicted");
    expect(statusOf(conflicted.mission, "a")).toBe("running");
    expect(conflicted.commands).toEqual([
      { type: "start_attempts", attempts: [{ item: "a", attempt: 2, previousFailure: "attempt 1: conflict with the queue on src/a/x.ts" }] },
    ]);
    const verify = step(m, { type: "verify_failed", at: at(6), item: "a", attempt: 1, output: "1 test failed" });
    expect(verify.mission.items[0]?.attempts[0]?.status).toBe("verify_failed");
    expect(verify.mission.items[0]?.attempts[0]?.reason).toBe("queue verification failed:\n1 test failed");
  });
});

describe("step: review, time, cancel, retry", () => {
  const done = () => missionAfter([requested(), planned([item("a")]), checkpointed("a"), integrated("a")]);

  it("goes to review when every item is final, and finishes with the verdict", () => {
    const m = done();
    expect(m.status).toBe("reviewing");
    const r = step(m, { type: "reviewed", at: at(9), verdict: "approve", summary: "ok", findings: [] });
    expect(r.mission.status).toBe("done");
    expect(r.mission.verdict?.verdict).toBe("approve");
    expect(r.commands).toEqual([{ type: "report" }, { type: "finish", status: "done" }]);
    expect(() => step(missionAfter([requested()]), { type: "reviewed", at: at(9), verdict: "approve", summary: "", findings: [] })).toThrow(IllegalEventError);
  });

  it("times out an attempt past item_timeout and retries it", () => {
    const m = missionAfter([requested(), planned([item("a")]), started("a", 1, 2)]);
    expect(step(m, { type: "tick", at: at(20) }).duplicate).toBe(true);
    const r = step(m, { type: "tick", at: at(40) });
    expect(r.commands).toEqual([
      { type: "cancel_attempts", attempts: [{ item: "a", attempt: 1 }] },
      { type: "start_attempts", attempts: [{ item: "a", attempt: 2, previousFailure: "attempt 1: timed out: no result after 30 min" }] },
    ]);
  });

  it("measures item_timeout from when the attempt's job started, not from its dispatch", () => {
    // Dispatched at minute 1 into a run whose leg waits for a runner (the account's quota).
    const queued = missionAfter([requested({ max_attempts: 1 }), planned([item("a")]), dispatched("a", 1, 1)]);
    expect(step(queued, { type: "tick", at: at(45) }).duplicate).toBe(true);
    const running = step(queued, started("a", 1, 50)).mission;
    expect(running.items[0]?.attempts[0]).toMatchObject({
      status: "running",
      dispatched_at: at(1),
      started_at: at(50),
      runner: "https://github.com/acme/demo/actions/runs/7",
    });
    expect(step(running, { type: "tick", at: at(79) }).duplicate).toBe(true);
    const late = step(running, { type: "tick", at: at(81) });
    expect(statusOf(late.mission, "a")).toBe("timed_out");
    expect(late.mission.items[0]?.reason).toBe("timed out: no result after 30 min");
  });

  it("stops an attempt's clock when its agent exited, and bounds the wait for its result by queue_timeout", () => {
    // On GitHub: the leg's job ended at minute 20, and the job that records its result waits
    // for a runner behind the account's queued jobs (the runner quota).
    const exited = { type: "agent_exited" as const, at: at(20), item: "a", attempt: 1 };
    const m = missionAfter([
      requested({ queue_timeout_ms: 60 * 60_000, max_attempts: 1 }),
      planned([item("a")]),
      dispatched("a", 1, 1),
      started("a", 1, 2),
      exited,
    ]);
    expect(step(m, { type: "tick", at: at(40) }).duplicate).toBe(true);
    expect(step(m, { type: "tick", at: at(80) }).duplicate).toBe(true);
    expect(statusOf(step(step(m, { type: "tick", at: at(80) }).mission, checkpointed("a")).mission, "a")).toBe("checkpointed");
    const lost = step(m, { type: "tick", at: at(81) });
    expect(statusOf(lost.mission, "a")).toBe("timed_out");
    expect(lost.mission.items[0]?.reason).toBe(
      "timed out: its agent exited, but its result did not reach the mission within 60 min (limits.queue_timeout; naruto's jobs that record it wait for a runner like any job)",
    );
    expect(lost.commands[0]).toEqual({ type: "cancel_attempts", attempts: [{ item: "a", attempt: 1 }] });
  });

  it("times out an attempt whose agent exited only after item_timeout, whenever the tick comes", () => {
    const exited = { type: "agent_exited" as const, at: at(40), item: "a", attempt: 1 };
    const m = missionAfter([requested({ max_attempts: 1 }), planned([item("a")]), started("a", 1, 2), exited]);
    const r = step(m, { type: "tick", at: at(41) });
    expect(statusOf(r.mission, "a")).toBe("timed_out");
    expect(r.mission.items[0]?.reason).toBe("timed out: no result after 30 min");
  });

  it("times out an attempt that waited for a runner longer than queue_timeout, and cancels its run", () => {
    const m = missionAfter([requested({ queue_timeout_ms: 60 * 60_000, max_attempts: 1 }), planned([item("a")]), dispatched("a", 1, 1)]);
    expect(step(m, { type: "tick", at: at(59) }).duplicate).toBe(true);
    const r = step(m, { type: "tick", at: at(62) });
    expect(statusOf(r.mission, "a")).toBe("timed_out");
    expect(r.mission.items[0]?.attempts[0]).toMatchObject({ status: "timed_out", started_at: null });
    expect(r.mission.items[0]?.reason).toBe(
      "timed out: waited 60 min for a runner and never started (limits.queue_timeout; at most the account's concurrent-job quota runs at once)",
    );
    expect(r.commands[0]).toEqual({ type: "cancel_attempts", attempts: [{ item: "a", attempt: 1 }] });
  });

  it("times out at item_timeout an attempt whose dispatch was never recorded (its request failed): nothing waits for a runner", () => {
    const m = missionAfter([requested({ queue_timeout_ms: 120 * 60_000, max_attempts: 1 }), planned([item("a")])]);
    expect(step(m, { type: "tick", at: at(30) }).duplicate).toBe(true);
    const r = step(m, { type: "tick", at: at(32) });
    expect(statusOf(r.mission, "a")).toBe("timed_out");
    expect(r.mission.items[0]?.reason).toBe("timed out: no run of it was recorded within 30 min (its dispatch failed or was lost)");
    // Recorded, it waits for a runner against queue_timeout instead.
    expect(step(step(m, dispatched("a", 1, 1)).mission, { type: "tick", at: at(32) }).duplicate).toBe(true);
  });

  it("records a dispatch's run without starting the attempt's clock, once", () => {
    const m = missionAfter([requested(), planned([item("a")])]);
    const r = step(m, dispatched("a", 1, 1));
    expect(r.mission.items[0]?.attempts[0]).toMatchObject({
      status: "dispatched",
      started_at: null,
      base: "b".repeat(40),
      runner: "https://github.com/acme/demo/actions/runs/7",
    });
    expect(step(r.mission, dispatched("a", 1, 1)).duplicate).toBe(true);
    // A start seen once more (the App's event and the sweep's read) changes nothing.
    const running = step(r.mission, started("a", 1, 3)).mission;
    expect(step(running, started("a", 1, 4)).duplicate).toBe(true);
    expect(step(running, dispatched("a", 1, 5)).duplicate).toBe(true);
  });

  it("stops a mission past mission_timeout and reviews what was integrated", () => {
    const m = missionAfter([
      requested({ mission_timeout_ms: 60 * 60_000, item_timeout_ms: 600 * 60_000 }),
      planned([item("a"), item("b")]),
      checkpointed("a"),
      integrated("a"),
    ]);
    const r = step(m, { type: "tick", at: at(61) });
    expect(statusOf(r.mission, "b")).toBe("cancelled");
    expect(statusOf(r.mission, "a")).toBe("integrated");
    expect(r.mission.status).toBe("reviewing");
    expect(r.mission.reason).toBe("mission timed out after 60 min");
  });

  it("cancels running work but lets a checkpoint on its way finish integrating", () => {
    const m = missionAfter([requested(), planned([item("a"), item("b")]), checkpointed("a")]);
    const r = step(m, { type: "cancelled", at: at(7), by: "octo" });
    expect(r.mission.status).toBe("cancelled");
    expect(statusOf(r.mission, "b")).toBe("cancelled");
    expect(r.commands).toEqual([
      { type: "cancel_attempts", attempts: [{ item: "b", attempt: 1 }] },
      { type: "report" },
      { type: "finish", status: "cancelled" },
    ]);
    expect(statusOf(step(r.mission, integrated("a")).mission, "a")).toBe("integrated");
    expect(step(r.mission, { type: "cancelled", at: at(8), by: null }).duplicate).toBe(true);
  });

  it("stops at the cost cap instead of warning", () => {
    const m = missionAfter([requested({ max_cost_usd: 1 }), planned([item("a"), item("b", ["a"])])]);
    const r = step(m, { type: "attempt_finished", at: at(5), item: "a", attempt: 1, outcome: { kind: "failed", reason: "x" }, cost_usd: 1.5 });
    expect(statusOf(r.mission, "a")).toBe("cancelled");
    expect(r.mission.reason).toBe("cost cap reached: $1.50 spent of $1.00");
    expect(r.mission.status).toBe("reviewing");
  });

  it("retries failed items on request and un-skips their dependents", () => {
    const m = missionAfter([
      requested({ max_attempts: 1 }),
      planned([item("a"), item("b", ["a"])]),
      finished("a", 1, { kind: "failed", reason: "x" }),
      { type: "reviewed", at: at(9), verdict: "request_changes", summary: "", findings: [] },
    ]);
    expect(statusOf(m, "b")).toBe("skipped");
    const r = step(m, { type: "retry_requested", at: at(10), target: "failed" });
    expect(r.mission.status).toBe("running");
    expect(r.mission.verdict).toBeNull();
    expect(statusOf(r.mission, "a")).toBe("running");
    expect(statusOf(r.mission, "b")).toBe("pending");
    expect(() => step(m, { type: "retry_requested", at: at(10), target: "zz" })).toThrow(/no item "zz"/);
  });
});
