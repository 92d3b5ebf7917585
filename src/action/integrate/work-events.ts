/**
 * The work jobs' artifacts become `attempt_finished` events, the same in the queue job (which
 * holds no write token) and in the publish job (which re-derives everything from the artifacts
 * before it pushes). A checkpoint is to be pushed to its worker branch only after
 * `recheckCheckpoint` accepted it; a refused one fails the attempt with the reason and nothing of
 * it leaves the job. The pushes are returned, not made: only publish makes them, and only once it
 * knows the queue job's result. An artifact for an attempt that is not in flight (cancelled,
 * timed out, already finished) is ignored.
 */
import type { Config } from "../../config/index.ts";
import type { Git } from "../../git/index.ts";
import { workerBranch } from "../../gate/index.ts";
import type { Mission, MissionItem } from "../../mission/index.ts";
import type { AttemptOutcome, MissionEvent } from "../../mission/index.ts";
import { ARTIFACT_FILES, partialWorkBranch, readArtifactJson, workArtifactName, workResultSchema, type WorkResult } from "../artifacts.ts";
import type { ActionLog } from "../log.ts";
import { recheckCheckpoint, recheckPartialWork } from "./recheck.ts";
import { join } from "node:path";

/** A leg to record, and the job its result must name. */
export interface WorkEntry {
  readonly item: string;
  readonly attempt: number;
  readonly job?: { readonly runId: number; readonly runAttempt: number; readonly name: string };
}

export interface WorkEventsInput {
  readonly folder: string;
  readonly mission: Mission;
  readonly config: Config;
  readonly git: Git;
  readonly repoDir: string;
  readonly queueRef: string;
  /**
   * The legs whose artifacts were taken (take-legs.ts), each with the job GitHub says is its own:
   * the result must name that job. Without `job` (tests of one machine) the result is not bound.
   */
  readonly entries: readonly WorkEntry[];
  readonly at: string;
  readonly runUrl: string | null;
  readonly log: ActionLog;
}

/** A ref publish moves for a checked attempt: its worker branch, or the branch of its partial work. */
export interface BranchPush {
  readonly item: string;
  readonly attempt: number;
  readonly commit: string;
  /** Full ref name on GitHub. */
  readonly ref: string;
  /** `checkpoint`: the worker branch of a checkpoint on its way to the queue; `partial`: kept work. */
  readonly kind: "checkpoint" | "partial";
}

export async function workEvents(input: WorkEventsInput): Promise<{ events: MissionEvent[]; pushes: BranchPush[] }> {
  const events: MissionEvent[] = [];
  const pushes: BranchPush[] = [];
  for (const entry of input.entries) {
    const item = input.mission.items.find((i) => i.id === entry.item);
    const attempt = item?.attempts.find((a) => a.n === entry.attempt);
    if (!item || !attempt || (attempt.status !== "dispatched" && attempt.status !== "running")) {
      input.log.info(`${entry.item}#${entry.attempt} is not in flight (${attempt?.status ?? "unknown"}): its artifact is ignored`);
      continue;
    }
    const name = workArtifactName(item.id, entry.attempt);
    const read = await readArtifactJson(input.folder, name, ARTIFACT_FILES.result, workResultSchema);
    const finished = (outcome: AttemptOutcome, r?: WorkResult): MissionEvent => ({
      type: "attempt_finished",
      at: input.at,
      item: item.id,
      attempt: entry.attempt,
      outcome,
      ...(r
        ? { summary: r.summary ?? null, cost_usd: r.cost_usd ?? null, tokens_in: r.tokens_in ?? null, tokens_out: r.tokens_out ?? null, model: r.model ?? null }
        : {}),
    });
    if (read.kind === "missing") {
      events.push(finished({ kind: "failed", reason: `the work job ended without a result${input.runUrl ? ` (see ${input.runUrl})` : ""}` }));
      continue;
    }
    if (read.kind === "invalid") {
      events.push(finished({ kind: "failed", reason: `the work job's result was refused: ${read.reason}` }));
      continue;
    }
    const r = read.value;
    if (r.mission !== input.mission.id || r.item !== item.id || r.attempt !== entry.attempt) {
      events.push(finished({ kind: "failed", reason: `the work job's result was refused: it names ${r.mission} ${r.item}#${r.attempt}` }, r));
      continue;
    }
    const bound = entry.job;
    if (bound !== undefined && (r.job === null || r.job.run_id !== bound.runId || r.job.run_attempt !== bound.runAttempt || r.job.name !== bound.name)) {
      const named = r.job === null ? "no job" : `job ${JSON.stringify(r.job.name)} of run ${r.job.run_id} (attempt ${r.job.run_attempt})`;
      events.push(
        finished(
          {
            kind: "failed",
            reason: `the work job's result was refused: it names ${named}, not its leg ${JSON.stringify(bound.name)} of run ${bound.runId} (attempt ${bound.runAttempt})`,
          },
          r,
        ),
      );
      continue;
    }
    const o = r.outcome;
    if (o.kind === "interrupted") {
      // Counted like any failure: a result that claims an interruption could otherwise loop for ever.
      // Its work did not leave the job (only a timed-out or failed attempt's does): a claim otherwise is not repeated.
      events.push(finished({ kind: "failed", reason: `the work job was interrupted: ${o.reason}`, work: o.work?.kind === "not_kept" ? o.work : null }, r));
      continue;
    }
    if (o.kind !== "checkpointed") {
      events.push(finished(await keepPartialWork({ ...input, folder: join(input.folder, name), item, attempt: entry.attempt, result: r }, pushes), r));
      continue;
    }
    const checked = await recheckCheckpoint({ ...input, folder: join(input.folder, name), item, attempt: entry.attempt, result: r });
    if (checked.kind === "refused") {
      input.log.warning(`${item.id}#${entry.attempt}: ${checked.reason}`);
      events.push(finished(checked.outcome, r));
      continue;
    }
    const branch = `refs/heads/${workerBranch(input.mission.id, item.id)}`;
    pushes.push({ item: item.id, attempt: entry.attempt, commit: checked.outcome.commit, ref: branch, kind: "checkpoint" });
    input.log.info(`${item.id}#${entry.attempt}: checkpoint ${checked.outcome.commit.slice(0, 12)} accepted`);
    events.push(finished(checked.outcome, r));
  }
  return { events, pushes };
}

/**
 * The outcome of an attempt that did not finish, with the work it left kept on its branch when
 * the work job sent that work and it passes the checkpoint's checks. The outcome says the work is
 * kept only if it is to be pushed: otherwise it says why it was not kept.
 */
async function keepPartialWork(
  input: WorkEventsInput & { folder: string; item: MissionItem; attempt: number; result: WorkResult },
  pushes: BranchPush[],
): Promise<AttemptOutcome> {
  const o = input.result.outcome;
  if (o.kind === "checkpointed" || o.kind === "no_changes" || o.kind === "out_of_scope" || o.work?.kind !== "kept") return o;
  const notKept = (why: string): AttemptOutcome => ({ ...o, work: { kind: "not_kept", why } });
  if (o.kind !== "timed_out" && o.kind !== "failed" && o.kind !== "permanent")
    return notKept("a work job keeps the work of a timed-out or failed attempt only");
  const branch = `refs/heads/${partialWorkBranch(input.mission.id, input.item.id, input.attempt)}`;
  const commit = input.result.commit;
  if (commit === null || o.work.ref !== branch || o.work.commit !== commit) return notKept("the work job did not send the commit it says it kept");
  const checked = await recheckPartialWork(input);
  if (checked.kind === "refused") {
    input.log.warning(`${input.item.id}#${input.attempt}: partial work refused: ${checked.reason}`);
    return notKept(`it was refused: ${checked.reason}`);
  }
  pushes.push({ item: input.item.id, attempt: input.attempt, commit: checked.commit, ref: branch, kind: "partial" });
  input.log.info(`${input.item.id}#${input.attempt}: partial work ${checked.commit.slice(0, 12)} accepted, to be kept on ${branch}`);
  // Passed the checks: within the item's scope, whatever the work job said.
  return { ...o, work: { kind: "kept", ref: branch, commit: checked.commit, outside: [] } };
}

/** The events of legs that ended without a result naruto takes (take-legs.ts): each attempt fails, still in flight. */
export function failedLegEvents(
  mission: Mission,
  failed: readonly { readonly item: string; readonly attempt: number; readonly reason: string }[],
  at: string,
): MissionEvent[] {
  return failed
    .filter((f) => {
      const a = mission.items.find((i) => i.id === f.item)?.attempts.find((x) => x.n === f.attempt);
      return a !== undefined && (a.status === "dispatched" || a.status === "running");
    })
    .map((f) => ({ type: "attempt_finished", at, item: f.item, attempt: f.attempt, outcome: { kind: "failed", reason: f.reason } }));
}
