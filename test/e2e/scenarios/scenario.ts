/** An end-to-end scenario: a name for `e2e NAME ok`, and a run that throws why it failed. */
import { AssertionError } from "node:assert";
import { formatRun, type RunResult } from "../../support/actions-sim/index.ts";

export interface Scenario {
  readonly name: string;
  run(): Promise<void>;
}

/** Throws with `why` and the runs so far (with the failed steps' logs) when `ok` is false. */
export function check(ok: boolean, why: string, runs: readonly RunResult[] = []): asserts ok {
  if (ok) return;
  const detail = runs.length === 0 ? "" : `\n\nruns:\n${runs.map((r) => formatRun(r, { withLogs: true })).join("\n")}`;
  throw new AssertionError({ message: `${why}${detail}` });
}

/** `check` for equality of JSON-able values, showing both. */
export function checkEqual(actual: unknown, expected: unknown, what: string, runs: readonly RunResult[] = []): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  check(a === e, `${what}: expected ${e}, got ${a}`, runs);
}
