/**
 * The queue's verification of a candidate commit (docs/architecture.md): a function from the commit to
 * how its check went. Where and how the check runs — a fresh work directory at the candidate,
 * the command in the sandbox, the test report read back — is the engine's to give
 * (src/engine/queue-verify.ts); the queue decides what to verify, judges each run (`judgeRun`,
 * pure), and bisects on red.
 */
import { testsRun, type TestReport } from "./test-report.ts";

/** The test report of one run: none asked for, asked for but not usable (why), or read. */
export type ReportRead =
  | { readonly kind: "none" }
  | { readonly kind: "unreadable"; readonly reason: string }
  | { readonly kind: "read"; readonly report: TestReport };

export interface ProcessResult {
  /** null when the command could not start or was killed. */
  readonly exitCode: number | null;
  readonly output: string;
  /** Absent: no report was asked for (`queue.verify_report` unset). */
  readonly report?: ReportRead;
}

/** Runs the check on one candidate commit. */
export type VerifyCandidate = (commit: string) => Promise<ProcessResult>;

export interface VerifyOutcome {
  readonly green: boolean;
  readonly exitCode: number | null;
  /** The last lines of the command's output, and why naruto judged it as it did when not by the exit code alone. */
  readonly outputTail: string;
  /** What the tests did, when a report was read. */
  readonly report: TestReport | null;
}

/**
 * How runs are judged. `baseline`: with `queue.red_base: compare`, the base's report; a run is
 * then green when it ran tests and fails none the base did not fail already, whatever its exit
 * code (the base's own failures make it non-zero).
 */
export interface JudgePolicy {
  readonly baseline: TestReport | null;
}

export function tail(text: string, maxChars = 4000): string {
  return text.length <= maxChars ? text : text.slice(text.length - maxChars);
}

/**
 * Judges one run. A report that was asked for and is missing or unreadable is red, and so is a
 * report of no test run ("tests pass" when none ran proves nothing).
 *
 * @example judgeRun({ exitCode: 0, output: "", report: { kind: "read", report: emptyReport } }, { baseline: null })
 * // { green: false, … outputTail: "…naruto: the verify ran no test (its report lists 0 …)" }
 */
export function judgeRun(result: ProcessResult, policy: JudgePolicy = { baseline: null }): VerifyOutcome {
  const read = result.report ?? { kind: "none" };
  const report = read.kind === "read" ? read.report : null;
  const red = (why: string): VerifyOutcome => ({
    green: false,
    exitCode: result.exitCode,
    outputTail: tail(`${result.output}${result.output.endsWith("\n") || result.output === "" ? "" : "\n"}naruto: ${why}\n`),
    report,
  });
  if (read.kind === "unreadable") return red(read.reason);
  if (report !== null && testsRun(report) === 0) {
    return red(`the verify ran no test (its report lists ${report.tests}, ${report.skipped} skipped): a green run that tested nothing proves nothing`);
  }
  if (policy.baseline !== null && report !== null) {
    if (result.exitCode === null) return red("the verify was killed or could not start");
    const known = new Set(policy.baseline.failures);
    const fresh = report.failures.filter((f) => !known.has(f));
    if (fresh.length > 0) return red(`fails ${fresh.length} test(s) the base does not: ${fresh.slice(0, 10).join(", ")}`);
    if (report.failed > report.failures.length) return red(`fails ${report.failed} tests, more than naruto can compare with the base's one by one`);
    return { green: true, exitCode: result.exitCode, outputTail: tail(result.output), report };
  }
  if (policy.baseline !== null) return red("the verify wrote no test report to compare with the base's");
  return { green: result.exitCode === 0, exitCode: result.exitCode, outputTail: tail(result.output), report };
}

/** The outcome of one verification run. */
export async function verifyOnce(check: VerifyCandidate, commit: string, policy?: JudgePolicy): Promise<VerifyOutcome> {
  return judgeRun(await check(commit), policy);
}
