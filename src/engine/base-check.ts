/**
 * The base first (issue 37): before the first batch, `queue.verify` runs once on the mission's
 * base, and the result is kept on the mission (so it runs once per base commit and verify
 * command). A red base would make every batch red and bisection blame every item: instead it
 * stops integration with a reason that names the base and shows its output, or, with
 * `queue.red_base: compare`, batches are judged against the base's own failures.
 */
import type { BaseCheck, Mission, TestReportRecord } from "../mission/index.ts";
import { judgeRun, tail, type JudgePolicy, type TestReport, type VerifyCandidate, type VerifyOutcome } from "../queue/index.ts";

/** Output kept on the mission and shown in a red base's reason. */
const OUTPUT_KEPT = 3000;

/** The mission's base check, when it holds for this base and command (else null: run it). */
export function knownBaseCheck(mission: Mission, command: string): BaseCheck | null {
  const known = mission.queue.base_check;
  return known !== null && known.commit === mission.base.commit && known.command === command ? known : null;
}

/**
 * Runs the verify on the base and judges it like any run (a report of no test is red). A red is
 * confirmed like a suspect's (`confirmRuns` more runs, all red) before it counts: one green run
 * among them is a flip, and the base counts as green.
 */
export async function checkBase(verify: VerifyCandidate, mission: Mission, command: string, confirmRuns: number): Promise<BaseCheck> {
  const runs: VerifyOutcome[] = [];
  do runs.push(judgeRun(await verify(mission.base.commit)));
  while (runs.every((r) => !r.green) && runs.length < 1 + confirmRuns);
  const green = runs.some((r) => r.green);
  const shown = (green ? runs.find((r) => r.green) : runs.at(-1)) ?? runs[0];
  if (shown === undefined) throw new Error("checkBase ran nothing");
  return {
    commit: mission.base.commit,
    command,
    green,
    exit_code: shown.exitCode,
    output: tail(shown.outputTail, OUTPUT_KEPT),
    report: reportRecord(shown.report),
    runs: runs.map((r) => r.green),
  };
}

/** A test report as the mission keeps it. */
export function reportRecord(report: TestReport | null): TestReportRecord | null {
  return report === null ? null : { ...report, files: report.files.map((f) => ({ ...f })), failures: [...report.failures] };
}

/** How batches are judged on this base, or why integration stops. */
export function policyOnBase(check: BaseCheck, redBase: "stop" | "compare", ref: string): { readonly judge: JudgePolicy } | { readonly halt: string } {
  if (check.green) return { judge: { baseline: null } };
  if (redBase === "compare" && check.report !== null) return { judge: { baseline: check.report } };
  return { halt: baseRedReason(check, ref, redBase) };
}

/** Says the base is red, which commit, what the verify printed, and what to do. */
export function baseRedReason(check: BaseCheck, ref: string, redBase: "stop" | "compare"): string {
  const exit = check.exit_code === null ? "was killed or could not start" : `exited ${check.exit_code}`;
  const next =
    redBase === "compare"
      ? "queue.red_base is compare, but the base's run left no test report to compare with: check queue.verify_report"
      : "fix the base (or set queue.red_base: compare with a queue.verify_report, to judge batches against the base's own failures), then run the mission again";
  const output = check.output.trim() === "" ? "(no output)" : check.output.trimEnd();
  return `the base is red: queue.verify ${exit} on the base ${check.commit.slice(0, 12)} (${ref}) before any checkpoint was integrated, so nothing is blamed on the agents; ${next}. Its output:\n${output}`;
}

/** Says the verify flips too often to blame anyone. */
export function flakyVerifyReason(flips: number, max: number): string {
  return `queue.verify is flaky: its verdict flipped ${flips} time(s) (red, then green on the same candidate), more than queue.max_flips (${max}); nothing more is integrated: make the verify deterministic, or raise queue.max_flips or queue.confirm_runs`;
}
