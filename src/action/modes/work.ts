/**
 * `work` (read-only job): one attempt of one item, in two steps. The action's step (which
 * holds the job's read-only token) loads the mission and the config at its base and hands them
 * over in a file, then exits. The agent step (a `run:` step holding no token) does the attempt
 * exactly as on one machine (`runAttempt`: a worker branch at the queue head, the agent, the
 * scope check, the item's verify, the checkpoint commit), then the checkpoint leaves the job as
 * a git bundle with a result file. Neither step can push or write the mission state.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { workerBranch } from "../../gate/index.ts";
import { gitText, refUpdate, updateRefs } from "../../git/index.ts";
import { queueRefName } from "../../queue/index.ts";
import { AttemptStepError, runAttempt, type AttemptFinished } from "../../engine/index.ts";
import type { Mission, MissionItem } from "../../mission/index.ts";
import { outcomeReason, type AttemptOutcome } from "../../mission/index.ts";
import { codeSpan, inlineText } from "../../report/index.ts";
import { ARTIFACT_FILES, partialWorkBranch, type WorkResult } from "../artifacts.ts";
import { workLegName } from "../../github-driver/index.ts";
import { quoteUntrusted } from "../job-log.ts";
import type { AgentStepDeps, ModeDeps } from "../deps.ts";
import { PreparedFileError, preparedCommon, type PreparedOf } from "../prepared.ts";
import { artifactFolder, configFromText, engineContext, handOver, readMission, missionConfigText, missionInput, ModeInputError } from "./shared.ts";

const ENTRY = /^([a-z0-9][a-z0-9._-]{0,62})#([1-9][0-9]{0,3})$/;

/** `users-api#2` → the item and attempt of one matrix entry. */
export function parseWorkEntry(value: string): { item: string; attempt: number } {
  const match = ENTRY.exec(value.trim());
  if (!match) throw new ModeInputError(`input items ${JSON.stringify(value)}: expected ITEM#ATTEMPT, like users-api#2`);
  return { item: match[1]!, attempt: Number(match[2]) };
}

/** The action's step: what the attempt needs, read with the token, into the prepared file. */
export async function prepareWork(deps: ModeDeps, input: { mission: string; items: string }): Promise<void> {
  const id = missionInput(input.mission);
  const entry = parseWorkEntry(input.items);
  deps.log.setOutput("mission", id);
  const artifact = await artifactFolder(deps);
  const { mission } = await readMission(deps, id);
  const item = mission.items.find((i) => i.id === entry.item);
  const attempt = item?.attempts.find((a) => a.n === entry.attempt);
  if (!item || !attempt || (attempt.status !== "dispatched" && attempt.status !== "running")) {
    const reason = `${entry.item}#${entry.attempt} is not in flight (${attempt?.status ?? "unknown attempt"}): nothing to do`;
    await handOver(deps, { kind: "skip", phase: "work", mission: id, reason });
    deps.log.info(reason);
    await deps.log.summary(`naruto ${codeSpan(id)}: ${reason}`);
    return;
  }
  const configText = await missionConfigText(deps, mission);
  const job = deps.run === null ? null : { runId: deps.run.id, runAttempt: deps.run.attempt, name: workLegName(id, item.id, entry.attempt) };
  await handOver(deps, {
    kind: "work",
    ...preparedCommon(mission, { configPath: deps.configPath, configText, artifact }),
    item: item.id,
    attempt: entry.attempt,
    job,
  });
  deps.log.info(`${item.id}#${entry.attempt} is ready: the next step runs the agent, without any token`);
}

/** The agent step: the attempt, its bundle and its result, with no token anywhere in reach. */
export async function workStep(deps: AgentStepDeps, job: PreparedOf<"work">, options: { signal?: AbortSignal } = {}): Promise<void> {
  const { mission } = job;
  const id = mission.id;
  const item = mission.items.find((i) => i.id === job.item);
  if (!item) throw new PreparedFileError(`the prepared mission ${id} has no item ${JSON.stringify(job.item)}: run naruto's action step again`);
  const head = await queueHead(deps, mission);
  let finished: AttemptFinished;
  try {
    const config = configFromText({ text: job.configText, path: job.configPath, mission });
    const ctx = {
      ...(await engineContext(deps, config)),
      onOutput: agentOutput(deps),
      // This clone is gone when the job ends: unfinished work travels in the bundle, and the
      // publish job keeps it on a branch (or says in the outcome why it did not).
      keptRef: (k: { item: string; attempt: number }) => `refs/heads/${partialWorkBranch(id, k.item, k.attempt)}`,
    };
    const order = { item: item.id, attempt: job.attempt, previousFailure: previousFailure(item, job.attempt) };
    finished = await deps.log.group(`agent: ${item.id} attempt ${job.attempt}`, () =>
      runAttempt(ctx, mission, order, { started: async () => undefined, signal: options.signal ?? new AbortController().signal }),
    );
  } catch (error) {
    // naruto's own step failed (config, git): the attempt ends with the reason, not a timeout.
    const reason = `naruto could not run the attempt: ${error instanceof Error ? error.message : String(error)}`;
    const work = error instanceof AttemptStepError ? error.work : null;
    finished = { type: "attempt_finished", at: deps.now().toISOString(), item: item.id, attempt: job.attempt, outcome: { kind: "failed", reason, work } };
  }
  const out = job.artifact;
  const partial = await partialWork(deps, id, item.id, finished.outcome);
  const o = partial.outcome;
  if (o.kind === "checkpointed" || partial.commit !== null) {
    // Only base..checkpoint travels: the queue and publish jobs have the queue already.
    const branch = `refs/heads/${workerBranch(id, item.id)}`;
    await gitText(deps.git, {
      args: ["bundle", "create", join(out, ARTIFACT_FILES.bundle), branch, `^${o.kind === "checkpointed" ? o.base : head}`],
      cwd: deps.workspace,
    });
  }
  const result: WorkResult = {
    schema: "naruto.work-result/v1",
    mission: id,
    item: item.id,
    attempt: job.attempt,
    outcome: o,
    summary: finished.summary ?? null,
    cost_usd: finished.cost_usd ?? null,
    tokens_in: finished.tokens_in ?? null,
    tokens_out: finished.tokens_out ?? null,
    model: finished.model ?? null,
    commit: o.kind === "checkpointed" ? o.commit : partial.commit,
    base: o.kind === "checkpointed" ? o.base : head,
    job: job.job === null ? null : { run_id: job.job.runId, run_attempt: job.job.runAttempt, name: job.job.name },
  };
  await writeFile(join(out, ARTIFACT_FILES.result), `${JSON.stringify(result, null, 2)}\n`);
  deps.log.info(`${item.id}#${job.attempt}: ${o.kind}`);
  await deps.log.summary(workSummary(mission, item, result));
}

/**
 * The work an attempt that did not finish kept on the worker branch (within the item's scope),
 * which the bundle carries to the publish job; the outcome says the work was not kept when the
 * bundle cannot carry it (only timed-out and failed attempts' work leaves the job).
 */
async function partialWork(deps: AgentStepDeps, mission: string, item: string, o: AttemptOutcome): Promise<{ outcome: AttemptOutcome; commit: string | null }> {
  if (o.kind === "checkpointed" || o.kind === "no_changes" || o.kind === "out_of_scope" || o.work?.kind !== "kept") return { outcome: o, commit: null };
  const notKept = (why: string) => ({ outcome: { ...o, work: { kind: "not_kept" as const, why } }, commit: null });
  if (o.kind !== "timed_out" && o.kind !== "failed" && o.kind !== "permanent")
    return notKept("a work job keeps the work of a timed-out or failed attempt only");
  if (o.work.outside.length > 0)
    return notKept(`it changed what the item may not: ${o.work.outside.slice(0, 5).join(", ")}${o.work.outside.length > 5 ? ", …" : ""}`);
  const { code, stdout } = await deps.git({
    args: ["rev-parse", "--verify", "--quiet", `refs/heads/${workerBranch(mission, item)}^{commit}`],
    cwd: deps.workspace,
    okCodes: [1],
  });
  const tip = stdout.toString("utf8").trim();
  return code === 0 && tip === o.work.commit ? { outcome: o, commit: tip } : notKept("it is not on the worker branch the work job sends");
}

/**
 * The queue head this job checked out, as the local `naruto/<mission>` branch the worker starts
 * from. It must descend from the mission's base: anything else is not this mission's queue.
 */
async function queueHead(deps: AgentStepDeps, mission: Mission): Promise<string> {
  const head = await gitText(deps.git, { args: ["rev-parse", "--verify", "HEAD^{commit}"], cwd: deps.workspace });
  const { code } = await deps.git({ args: ["merge-base", "--is-ancestor", mission.base.commit, head], cwd: deps.workspace, okCodes: [1] });
  if (code !== 0) throw new ModeInputError(`the checkout (${head.slice(0, 12)}) is not on the queue of ${mission.id}: check out naruto/${mission.id}`);
  await deps.git(updateRefs(deps.workspace, [refUpdate(queueRefName(mission.id), head)]));
  return head;
}

/** The previous attempt's failure for the prompt, as the engine words it (docs/architecture.md). */
function previousFailure(item: MissionItem, n: number): string | null {
  const previous = item.attempts.find((a) => a.n === n - 1);
  return previous?.reason && previous.status !== "interrupted" ? `attempt ${previous.n}: ${previous.reason}` : null;
}

/**
 * Agent output goes to the job log with every line quoted (`quoteUntrusted`): a line the runner
 * would read as a workflow command (`::set-output`, `::add-mask`, after a `\r` too) must not come
 * from the agent. The chunks come redacted and in whole lines (runAgent's redacting stream).
 */
function agentOutput(deps: AgentStepDeps): (item: string, chunk: Buffer) => void {
  return (_item, chunk) => {
    const text = quoteUntrusted(chunk.toString("utf8"));
    if (text !== "") deps.log.info(text);
  };
}

function workSummary(mission: Mission, item: MissionItem, r: WorkResult): string {
  const o = r.outcome;
  const detail =
    o.kind === "checkpointed"
      ? `checkpoint \`${o.commit.slice(0, 12)}\` changing ${o.changed.length} path(s): ${o.changed
          .slice(0, 20)
          .map((p) => codeSpan(p))
          .join(", ")}`
      : o.kind === "out_of_scope"
        ? `out of scope: ${o.paths
            .slice(0, 20)
            .map((p) => inlineText(p, 200))
            .join(", ")}`
        : o.kind === "no_changes"
          ? "no changes"
          : inlineText(outcomeReason(o), 1000);
  return `### naruto ${codeSpan(mission.id)} · ${codeSpan(item.id)} attempt ${r.attempt}\n\n**${o.kind}** — ${detail}\n\nThe queue and publish jobs re-check this result before anything of it is pushed.\n`;
}
