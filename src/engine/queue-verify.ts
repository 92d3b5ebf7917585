/**
 * The queue's verify command (config `queue.verify`, or `--verify`) on a candidate commit: a
 * fresh work directory at the candidate, the command in the sandbox like any agent (it runs the
 * repository's code, which agents wrote), with the basic environment and `queue.env` only. A
 * command that cannot start, or runs past `limits.item_timeout`, is a red run. Its output is
 * redacted here, where it enters naruto: it goes into the record, the log and the mission. With
 * `queue.verify_report`, the JUnit report it writes is read back before the directory goes
 * (report-files.ts); the queue judges the run with it.
 */
import { buildCommandEnv } from "../agent/index.ts";
import type { ReportRead, VerifyCandidate } from "../queue/index.ts";
import { createRedactor, secretValues } from "../redact/index.ts";
import { describeLimitHit } from "../sandbox/index.ts";
import { containmentOf, sandboxLimits } from "./contained.ts";
import { withWorkDir, type EngineContext } from "./context.ts";
import { clearReports, readReports } from "./report-files.ts";

const OUTPUT_LIMIT = 64 * 1024;

/** The queue's verify was stopped (the run shuts down, the mission ended): the batch is not judged. */
export class VerifyStoppedError extends Error {
  override readonly name = "VerifyStoppedError";
  constructor(readonly commit: string) {
    super(
      `the queue's verify of ${commit.slice(0, 12)} was stopped: naruto is shutting down or the mission ended; the batch is integrated when the mission resumes`,
    );
  }
}

export function queueVerifier(ctx: EngineContext, mission: string, command: string): VerifyCandidate {
  const redactor = createRedactor({ secrets: secretValues({ env: ctx.env, passed: ctx.config.queue.env }) });
  return (commit) =>
    withWorkDir(ctx, { mission, label: "verify", purpose: "verify", attempt: null, commit }, async (workDir) => {
      const { env } = buildCommandEnv({ from: ctx.env, allow: ctx.config.queue.env });
      env.NARUTO_MISSION = mission;
      const containment = await containmentOf(null, ctx);
      const reportPath = ctx.config.queue.verify_report;
      if (reportPath !== null) await clearReports(workDir.path, reportPath);
      const run = await ctx.sandbox.run({
        command,
        workDir,
        env,
        network: true,
        readOnly: containment.readOnly,
        links: containment.links,
        limits: sandboxLimits(ctx.config.limits),
        timeoutMs: ctx.config.limits.item_timeout,
        outputLimitBytes: OUTPUT_LIMIT,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      // Stopped is no answer: a red run would fail the batch's items, and bisect them.
      if (run.cancelled) throw new VerifyStoppedError(commit);
      let output = run.output;
      if (run.timedOut) output += `\nnaruto: verify timed out after ${ctx.config.limits.item_timeout} ms\n`;
      if (run.startFailed !== null) output += `\nnaruto: could not run the verify command: ${run.startFailed}\n`;
      if (run.limit !== null) output += `\nnaruto: ${describeLimitHit(run.limit, "the verify command")}\n`;
      const exitCode = run.timedOut || run.cancelled ? null : run.exitCode;
      if (reportPath === null) return { exitCode, output: redactor.redact(output) };
      return { exitCode, output: redactor.redact(output), report: redactedReport(await readReports(workDir.path, reportPath), redactor.redact) };
    });
}

/** Test names and file names come from the repository's code: they pass the redactor like its output. */
function redactedReport(read: ReportRead, redact: (text: string) => string): ReportRead {
  if (read.kind === "none") return read;
  if (read.kind === "unreadable") return { kind: "unreadable", reason: redact(read.reason) };
  const r = read.report;
  return { kind: "read", report: { ...r, files: r.files.map((f) => ({ ...f, file: redact(f.file) })), failures: r.failures.map(redact) } };
}
