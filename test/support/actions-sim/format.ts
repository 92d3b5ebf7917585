/** Runs as short readable text, for failure messages and the e2e script's diagnostics. */
import type { JobResult, RunResult } from "./types.ts";

function tail(text: string, lines: number): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/** One line per job; `withLogs` adds the tail of each failed step's log. */
export function formatRun(run: RunResult, options: { withLogs?: boolean } = {}): string {
  const inputs = Object.entries(run.inputs)
    .map(([k, v]) => `${k}=${v.length > 60 ? `${v.slice(0, 57)}...` : v}`)
    .join(" ");
  const head = `run ${run.id} "${run.title}" ${run.event} ${inputs} → ${run.conclusion}`;
  return [head, ...run.jobs.map((job) => formatJob(job, options.withLogs ?? false))].join("\n");
}

function formatJob(job: JobResult, withLogs: boolean): string {
  const line = `  ${job.name}: ${job.result}${job.reason === null ? "" : ` (${job.reason})`}${job.orphansKilled > 0 ? `, ${job.orphansKilled} process(es) killed at job end` : ""}`;
  if (!withLogs) return line;
  const failed = job.steps.filter((s) => s.outcome === "failure").map((s) => `    step ${s.name} failed:\n${tail(s.log, 25).replace(/^/gm, "      ")}`);
  return [line, ...failed].join("\n");
}
