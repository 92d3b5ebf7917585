/**
 * The `tampered` event and the `tampered` status in the engine (docs/architecture.md): the attempts a
 * finding names end `tampered` whatever they report, are never retried, their dependents are
 * skipped, and the arbiter blocks. Plus an attempt the runner never started, which is forgotten.
 */
import { describe, expect, it } from "vitest";
import { policyFindings } from "../arbiter/index.ts";
import { decideVerdict } from "../arbiter/index.ts";
import { at, checkpointed, finished, item, missionAfter, planned, requested, run, statusOf } from "../../test/support/mission-builders.ts";
import type { TamperFinding } from "./document.ts";
import type { MissionEvent } from "./events.ts";
import { NEVER_STARTED } from "./attempt-events.ts";

function tampered(findings: Partial<TamperFinding>[], minutes = 3): MissionEvent {
  return {
    type: "tampered",
    at: at(minutes),
    findings: findings.map((f) => ({
      at: at(minutes),
      what: "refs/heads/main",
      before: "a".repeat(40),
      after: "b".repeat(40),
      blame: "agents",
      attempts: [],
      action: null,
      ...f,
    })),
  };
}

const started = (id: string, n = 1): MissionEvent => ({ type: "attempt_started", at: at(1), item: id, attempt: n, base: "b".repeat(40), runner: "pid 1" });

describe("the tampered event", () => {
  it("ends every attempt it names tampered, even one that then reports a checkpoint, and never retries it", async () => {
    const m = missionAfter([
      requested({ max_attempts: 3 }),
      planned([item("a"), item("b"), item("c", ["a"])]),
      started("a"),
      started("b"),
      tampered([{ attempts: ["a#1", "b#1"] }]),
      checkpointed("a"),
      finished("b", 1, { kind: "failed", reason: "exit 1" }),
    ]);
    for (const id of ["a", "b"]) {
      const it = m.items.find((i) => i.id === id);
      expect(it?.status).toBe("tampered");
      expect(it?.attempts).toHaveLength(1);
      expect(it?.attempts[0]?.status).toBe("tampered");
      expect(it?.reason).toBe(
        "things outside its work directory changed while it ran without the sandbox: refs/heads/main; naruto cannot tell which of the 2 attempts running then did it (the old values are in the mission's tamper record)",
      );
    }
    expect(statusOf(m, "c")).toBe("skipped");
    expect(m.items.find((i) => i.id === "c")?.reason).toBe('dependency "a" was tampered');
    expect(m.status).toBe("reviewing");
    expect(m.tampering).toHaveLength(1);
  });

  it("is applied once: the same finding again changes nothing", () => {
    const events = [requested(), planned([item("a")]), started("a"), tampered([{ attempts: ["a#1"] }])];
    const results = run([...events, tampered([{ attempts: ["a#1"] }], 4)]);
    expect(results.at(-1)?.duplicate).toBe(true);
  });

  it("takes an attempt's own tampered outcome (the worker saw it) the same way", () => {
    const m = missionAfter([requested(), planned([item("a")]), started("a"), finished("a", 1, { kind: "tampered", reason: "left a process behind" })]);
    expect(m.items[0]).toMatchObject({ status: "tampered", reason: "left a process behind" });
  });

  it("makes the arbiter block, and only tells the user of their own change", () => {
    const blocked = missionAfter([requested(), planned([item("a")]), started("a"), tampered([{ attempts: ["a#1"] }]), checkpointed("a")]);
    const findings = policyFindings({
      mission: blocked,
      changedPaths: [],
      protectedPaths: [],
      queue: { verifyConfigured: false, headVerified: false },
      proofCheck: { ok: true },
    });
    expect(findings.filter((f) => f.rule === "tampered").map((f) => f.severity)).toEqual(["error", "error"]);
    expect(decideVerdict({ policy: findings, review: null }).verdict).toBe("block");

    const own = missionAfter([
      requested(),
      planned([item("a")]),
      started("a"),
      tampered([{ blame: "user", attempts: [] }]),
      checkpointed("a"),
      {
        type: "integrated",
        at: at(9),
        queue_head: "c".repeat(40),
        verify_runs: 0,
        results: [{ kind: "integrated", item: "a", attempt: 1, commit: "c".repeat(40), changed: ["src/a/x"] }],
      },
    ]);
    expect(own.items[0]?.status).toBe("integrated");
    const told = policyFindings({
      mission: own,
      changedPaths: ["src/a/x"],
      protectedPaths: [],
      queue: { verifyConfigured: false, headVerified: false },
      proofCheck: { ok: true },
    });
    expect(told.map((f) => [f.rule, f.severity])).toEqual([["user_change", "info"]]);
    expect(decideVerdict({ policy: told, review: null }).verdict).toBe("approve");
  });
});

describe("an attempt the runner never started", () => {
  it("is forgotten, not recorded, when it ends interrupted before it began: the item simply starts (again) as attempt 1", () => {
    const m = missionAfter([requested(), planned([item("a")]), finished("a", 1, { kind: "interrupted", reason: `${NEVER_STARTED} naruto stopped first` })]);
    expect(m.items[0]?.attempts.map((a) => [a.n, a.status, a.reason])).toEqual([[1, "dispatched", null]]);
  });

  it("is recorded as interrupted once it had started", () => {
    const m = missionAfter([
      requested(),
      planned([item("a")]),
      started("a"),
      finished("a", 1, { kind: "interrupted", reason: `${NEVER_STARTED} naruto stopped first` }),
    ]);
    expect(m.items[0]?.attempts.map((a) => a.status)).toEqual(["interrupted", "dispatched"]);
  });
});
