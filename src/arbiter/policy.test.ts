import { describe, expect, it } from "vitest";
import type { Mission } from "../mission/index.ts";
import { normalizePath, type RepoPath } from "../plan/index.ts";
import {
  cancelledMission,
  cleanMission,
  conflictedMission,
  costCappedMission,
  failedMission,
  runningMission,
  timedOutMission,
  withItem,
} from "./missions.fixture.ts";
import { policyFindings, type PolicyInput } from "./policy.ts";

function normalized(path: string): RepoPath {
  const r = normalizePath(path);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

const PROTECTED = [normalized(".github/workflows/"), normalized(".github/naruto.yml")];

/** Facts of a mission where every rule passes; each test changes one. */
function facts(mission: Mission, change: Partial<PolicyInput> = {}): PolicyInput {
  return {
    mission,
    changedPaths: ["src/a/x.ts", "src/b/x.ts"],
    protectedPaths: PROTECTED,
    queue: { verifyConfigured: true, headVerified: true },
    proofCheck: { ok: true },
    ...change,
  };
}

const rulesOf = (input: PolicyInput) => policyFindings(input).map((f) => `${f.severity} ${f.rule}`);

describe("policyFindings", () => {
  it("is quiet when every item is integrated, nothing protected changed, the queue is verified and the proof holds", () => {
    expect(policyFindings(facts(cleanMission()))).toEqual([]);
  });

  it.each([
    ["failed", failedMission({ kind: "failed", reason: "the agent crashed (exit 3)" }), 'item "a" is failed: the agent crashed (exit 3)'],
    ["out_of_scope", failedMission({ kind: "out_of_scope", paths: ["README.md"] }), 'item "a" is out_of_scope: changed paths it may not change: README.md'],
    ["timed_out", failedMission({ kind: "timed_out", reason: "no result after 30 min" }), 'item "a" is timed_out: no result after 30 min'],
    ["conflicted", conflictedMission(), 'item "a" is conflicted: conflict with the queue on src/a/x.ts'],
    ["cancelled", cancelledMission(), 'item "a" is cancelled: cancelled by octo'],
  ])("reports a %s item as an error naming the item and its reason", (_status, mission, message) => {
    const itemFindings = policyFindings(facts(mission)).filter((f) => f.rule === "item_failed");
    expect(itemFindings[0]).toEqual({ severity: "error", rule: "item_failed", message, path: null, line: null });
  });

  it("never lets a mission whose agents ran as root without a sandbox pass: an error that asks for changes", () => {
    const m = { ...cleanMission(), agents_as_root: true };
    expect(rulesOf(facts(m))).toEqual(["error agents_as_root"]);
    expect(policyFindings(facts(m))[0]?.message).toMatch(/as root without a sandbox.*bubblewrap/);
  });

  it("blocks on an artifact refused as a forgery (issue 32): a job of the mission ran code that impersonated a leg", () => {
    const mission: Mission = {
      ...cleanMission(),
      tampering: [
        {
          at: "2026-12-01T00:00:00Z",
          what: "artifact naruto-work-b-1 of run 41",
          before: null,
          after: "sha256:ab",
          blame: "forged_artifact",
          attempts: [],
          action: "b#1's leg is still at work; nothing of it was used",
        },
      ],
    };
    expect(policyFindings(facts(mission)).map((f) => [f.severity, f.rule, f.message])).toEqual([
      [
        "error",
        "tampered",
        "artifact naruto-work-b-1 of run 41 was refused: b#1's leg is still at work; nothing of it was used; a process in one of this mission's jobs made it, so review what the jobs ran",
      ],
    ]);
  });

  it("explains a skipped item by the failed dependency its reason names (a warning)", () => {
    const findings = policyFindings(facts(failedMission({ kind: "failed", reason: "boom" })));
    expect(findings).toContainEqual({
      severity: "warning",
      rule: "item_skipped",
      message: 'item "b" was skipped: dependency "a" failed (failed)',
      path: null,
      line: null,
    });
  });

  it.each([
    ["no reason", null],
    ["a reason naming no dependency", "it felt like it"],
    ["a dependency that is not one of the item's", 'dependency "zz" failed (failed)'],
  ])("reports a skipped item with %s as unexplained", (_case, reason) => {
    const m = withItem(failedMission({ kind: "failed", reason: "boom" }), "b", { reason });
    expect(rulesOf(facts(m))).toContain("error item_unexplained");
    expect(rulesOf(facts(m))).not.toContain("warning item_skipped");
  });

  it("reports a skip that names an integrated dependency as unexplained", () => {
    const m = withItem(withItem(cleanMission(), "b", { status: "skipped", reason: 'dependency "a" failed (failed)' }), "a", {});
    expect(rulesOf(facts(m))).toContain("error item_unexplained");
  });

  it("reports a failed item without any reason as unexplained", () => {
    const m = withItem(failedMission({ kind: "failed", reason: "boom" }), "a", { reason: null, attempts: [] });
    expect(rulesOf(facts(m))).toContain("error item_unexplained");
  });

  it("quotes at most 1,000 characters of a long reason (a failed verification's output)", () => {
    const m = withItem(failedMission({ kind: "failed", reason: "boom" }), "a", { reason: `queue verification failed:\n${"x".repeat(5000)}` });
    const message = policyFindings(facts(m)).find((f) => f.rule === "item_failed")?.message ?? "";
    expect(message.length).toBeLessThan(1100);
    expect(message.endsWith("…")).toBe(true);
  });

  it("reports an item that has not finished", () => {
    expect(rulesOf(facts(runningMission()))).toContain("error item_unfinished");
  });

  it.each([
    [".github/workflows/ci.yml", ".github/workflows/"],
    [".GitHub/Workflows/deploy.yml", ".github/workflows/"],
    [".github/naruto.yml", ".github/naruto.yml"],
  ])("reports the protected path %s changed on the queue", (path, by) => {
    const findings = policyFindings(facts(cleanMission(), { changedPaths: ["src/a/x.ts", path, path] }));
    expect(findings).toEqual([
      { severity: "error", rule: "protected_path", message: `"${path}" is protected (${by}) and changed on the queue`, path, line: null },
    ]);
  });

  it.each([[".github/workflows.md"], [".github/naruto.yml.bak"], ["src/.github/workflows/x.yml"]])("does not mistake %s for a protected path", (path) => {
    expect(policyFindings(facts(cleanMission(), { changedPaths: [path] }))).toEqual([]);
  });

  it("lets protected paths change when the config allows it (no protected paths given)", () => {
    expect(policyFindings(facts(cleanMission(), { changedPaths: [".github/workflows/ci.yml"], protectedPaths: [] }))).toEqual([]);
  });

  it("reports a queue head that is not a verified batch when a verify command is configured", () => {
    const findings = policyFindings(facts(cleanMission(), { queue: { verifyConfigured: true, headVerified: false } }));
    expect(findings.map((f) => f.rule)).toEqual(["queue_unverified"]);
    expect(findings[0]?.message).toContain("q-b");
  });

  it("does not trust the flag when the mission records no verify run", () => {
    const m = { ...cleanMission(), queue: { ...cleanMission().queue, verify_runs: 0 } };
    expect(rulesOf(facts(m))).toEqual(["error queue_unverified"]);
  });

  it.each([
    ["no verify command is configured", facts(cleanMission(), { queue: { verifyConfigured: false, headVerified: false } })],
    ["the queue is still at its base", facts(failedMission({ kind: "failed", reason: "x" }), { queue: { verifyConfigured: true, headVerified: false } })],
  ])("says nothing about the queue when %s", (_case, input) => {
    expect(rulesOf(input)).not.toContain("error queue_unverified");
  });

  it("reports every reason the proof checker gave", () => {
    const findings = policyFindings(facts(cleanMission(), { proofCheck: { ok: false, reasons: ["stale: plan digest differs", "pair a/b unordered"] } }));
    expect(findings.map((f) => [f.rule, f.message])).toEqual([
      ["proof", "the no-overlap proof does not hold: stale: plan digest differs"],
      ["proof", "the no-overlap proof does not hold: pair a/b unordered"],
    ]);
  });

  it("reports a failed proof check even without reasons", () => {
    expect(rulesOf(facts(cleanMission(), { proofCheck: { ok: false, reasons: [] } }))).toEqual(["error proof"]);
  });

  it("reports a proof that was not checked for a mission with a plan", () => {
    expect(rulesOf(facts(cleanMission(), { proofCheck: null }))).toEqual(["error proof_unchecked"]);
  });

  it.each([
    ["the cost cap", costCappedMission(), /cost cap reached: \$2\.00 spent of \$1\.00/],
    ["the mission timeout", timedOutMission(), /mission timed out after 360 min/],
    ["a cancel", cancelledMission(), /cancelled by octo/],
  ])("turns %s into a mission finding", (_case, mission, message) => {
    const stopped = policyFindings(facts(mission)).filter((f) => f.rule === "mission_stopped");
    expect(stopped).toHaveLength(1);
    expect(stopped[0]?.severity).toBe("error");
    expect(stopped[0]?.message).toMatch(message);
  });
});
