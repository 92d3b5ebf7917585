import { describe, expect, it } from "vitest";
import type { AttemptOutcome, KeptWork } from "./events.ts";
import { keptPlace, keptWorkClause, outcomeReason } from "./kept-work.ts";
import { step } from "./step.ts";
import { finished, item, missionAfter, planned, requested } from "../../test/support/mission-builders.ts";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const local: KeptWork = { kind: "kept", ref: "refs/naruto/attempts/m/a/1", commit: SHA, outside: [] };
const branch: KeptWork = { kind: "kept", ref: "refs/heads/naruto-attempts/m/a/1", commit: SHA, outside: [] };

describe("kept work: where an unfinished attempt's work is, as data", () => {
  it.each([
    [local, "refs/naruto/attempts/m/a/1 (0123456789ab)"],
    [branch, "the branch naruto-attempts/m/a/1 (0123456789ab)"],
  ])("names the place of %j", (work, place) => {
    expect(keptPlace(work as Extract<KeptWork, { kind: "kept" }>)).toBe(place);
  });

  it.each<[KeptWork | null | undefined, string]>([
    [undefined, ""],
    [null, ""],
    [local, "its partial work is kept at refs/naruto/attempts/m/a/1 (0123456789ab)"],
    [
      { ...local, outside: ["etc/x (outside_writes)"] },
      "its partial work is kept at refs/naruto/attempts/m/a/1 (0123456789ab) (it changed what the item may not: etc/x (outside_writes))",
    ],
    [
      { ...local, outside: ["a", "b", "c", "d", "e", "f"] },
      "its partial work is kept at refs/naruto/attempts/m/a/1 (0123456789ab) (it changed what the item may not: a, b, c, d, e, …)",
    ],
    [{ kind: "not_kept", why: "GitHub refused the push" }, "its partial work was not kept: GitHub refused the push"],
  ])("words %j as a clause", (work, clause) => {
    expect(keptWorkClause(work)).toBe(clause);
  });

  it("puts what became of the work before the output's end, so that a cut reason still tells it", () => {
    const o: AttemptOutcome = { kind: "failed", reason: "exited with code 1", work: local, output: "npm ERR! boom" };
    expect(outcomeReason(o)).toBe("exited with code 1; its partial work is kept at refs/naruto/attempts/m/a/1 (0123456789ab)\nnpm ERR! boom");
  });

  const running = () => missionAfter([requested(), planned([item("a")])]);

  it.each<[AttemptOutcome, string]>([
    [
      { kind: "timed_out", reason: "timed out after 2 s", work: branch },
      "timed out after 2 s; its partial work is kept at the branch naruto-attempts/m/a/1 (0123456789ab)",
    ],
    [
      { kind: "failed", reason: "killed by SIGKILL", work: { kind: "not_kept", why: "it was refused" }, output: "tail" },
      "killed by SIGKILL; its partial work was not kept: it was refused\ntail",
    ],
    [
      { kind: "interrupted", reason: "the runner stopped while the agent ran", work: local },
      "the runner stopped while the agent ran; its partial work is kept at refs/naruto/attempts/m/a/1 (0123456789ab)",
    ],
    [
      { kind: "tampered", reason: "it left a process running", work: local },
      "it left a process running; its partial work is kept at refs/naruto/attempts/m/a/1 (0123456789ab)",
    ],
    [{ kind: "timed_out", reason: "timed out after 2 s" }, "timed out after 2 s"],
  ])("the mission's reason for %j tells where the work is", (outcome, reason) => {
    const m = step(running(), finished("a", 1, outcome)).mission;
    expect(m.items[0]?.attempts[0]?.reason).toBe(reason);
  });

  it("adds where a cancelled attempt's work is kept once its worker reports it, and only once", () => {
    const cancelled = step(running(), { type: "cancelled", at: "2026-01-01T00:06:00.000Z", by: "octo" }).mission;
    const report = finished("a", 1, { kind: "interrupted", reason: "stopped", work: local }, 7);
    const r = step(cancelled, report);
    expect(r.mission.items[0]?.reason).toMatch(/; its partial work is kept at refs\/naruto\/attempts\/m\/a\/1 \(0123456789ab\)$/);
    expect(step(r.mission, report).duplicate).toBe(true);
  });
});
