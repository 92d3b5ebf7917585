/**
 * What the publish job needs to take a queue job's result without running anything of the
 * repository: the queue job's verify runs replayed by candidate commit, a sandbox that refuses
 * every process, and the check that a bundle holds exactly the queue branch rebuilt here.
 */
import { lstat } from "node:fs/promises";
import type { ProcessResult, VerifyCandidate } from "../../queue/index.ts";
import type { Sandbox } from "../../sandbox/index.ts";
import { ARTIFACT_FILES } from "../artifacts.ts";
import type { ModeDeps } from "../deps.ts";
import type { QueueRecord } from "./queue-record.ts";

export class UnverifiedCandidateError extends Error {
  override readonly name = "UnverifiedCandidateError";
  constructor(readonly commit: string) {
    super(`no verify result for ${commit}`);
  }
}

/** Publish runs nothing: a sandbox that refuses every process, should anything ever ask. */
export const NOTHING_RUNS: Sandbox = {
  kind: "none",
  runsAsRoot: false,
  description: "none (the publish job runs no process of the repository)",
  network: { kind: "host", reason: "no sandbox" },
  refusedReach: async () => null,
  run: () => Promise.reject(new Error("the publish job runs nothing of the repository: this is a bug in naruto")),
};

/**
 * The queue job's runs, by candidate commit and in order (a candidate may run more than once: the
 * base, a suspect's confirmations): a run it never made throws.
 */
export function replay(record: QueueRecord): VerifyCandidate {
  const runs = new Map<string, ProcessResult[]>();
  for (const r of record.verify) {
    const run: ProcessResult = { exitCode: r.exit_code, output: r.output, ...(r.report === undefined ? {} : { report: r.report }) };
    runs.set(r.commit, [...(runs.get(r.commit) ?? []), run]);
  }
  return async (commit) => {
    const run = runs.get(commit)?.shift();
    if (run === undefined) throw new UnverifiedCandidateError(commit);
    return run;
  };
}

/**
 * The bundle must hold exactly the queue branch at the rebuilt head (or be absent when nothing
 * moved). Its objects are never used: what is pushed is what this job built.
 */
export async function bundleProblem(deps: ModeDeps, bundle: string, queueRef: string, start: string, head: string): Promise<string | null> {
  const stat = await lstat(bundle).catch(() => null);
  if (head === start) return stat === null ? null : "it sends queue commits although the queue did not move";
  if (stat === null) return `it has no ${ARTIFACT_FILES.queueBundle}`;
  if (!stat.isFile()) return `${ARTIFACT_FILES.queueBundle} is not a regular file`;
  const { code, stdout } = await deps.git({ args: ["bundle", "list-heads", bundle], cwd: deps.workspace, okCodes: [128] });
  if (code !== 0) return `git cannot read ${ARTIFACT_FILES.queueBundle}`;
  const heads = stdout
    .toString("utf8")
    .split("\n")
    .filter((l) => l !== "");
  if (heads.length !== 1 || heads[0] !== `${head} ${queueRef}`) {
    return `its bundle holds ${heads.map((h) => h.slice(0, 12) + h.slice(40)).join(", ") || "nothing"}, not ${queueRef} at ${head.slice(0, 12)}, the head rebuilt here`;
  }
  return null;
}
