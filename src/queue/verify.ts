/**
 * The queue's verification of a candidate commit (docs/architecture.md): a function from the commit to
 * how its check went. Where and how the check runs — a fresh work directory at the candidate,
 * the command in the sandbox — is the engine's to give (src/engine/queue-verify.ts); the queue
 * only decides what to verify and bisects on red.
 */

export interface ProcessResult {
  /** null when the command could not start or was killed. */
  readonly exitCode: number | null;
  readonly output: string;
}

/** Runs the check on one candidate commit. */
export type VerifyCandidate = (commit: string) => Promise<ProcessResult>;

export interface VerifyOutcome {
  readonly green: boolean;
  readonly exitCode: number | null;
  /** The last lines of the command's output, for the report. */
  readonly outputTail: string;
}

export function tail(text: string, maxChars = 4000): string {
  return text.length <= maxChars ? text : text.slice(text.length - maxChars);
}

/** The outcome of one verification run. */
export async function verifyOnce(check: VerifyCandidate, commit: string): Promise<VerifyOutcome> {
  const result = await check(commit);
  return { green: result.exitCode === 0, exitCode: result.exitCode, outputTail: tail(result.output) };
}
