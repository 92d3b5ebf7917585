/**
 * `work` (read-only job): one attempt of one item, exactly as on one machine (`runAttempt`: a
 * worker branch at the queue head, the agent, the scope check, the item's verify, the
 * checkpoint commit), then the checkpoint leaves the job as a git bundle with a result file.
 * This job's token can only read: it cannot push, and it cannot write the mission state.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { workerBranch } from "../../git/worktree.ts";
import { gitText } from "../../git/run-git.ts";
import { queueRefName } from "../../git/queue-ref.ts";
import { gitCommonDir } from "../../local/layout.ts";
import { runAttempt, type AttemptFinished } from "../../local/worker.ts";
import type { Mission, MissionItem } from "../../mission/document.ts";
import { codeSpan, inlineText } from "../../report/escape.ts";
import { ARTIFACT_FILES, type WorkResult } from "../artifacts.ts";
import type { ModeDeps } from "../deps.ts";
import { artifactFolder, loadMission, missionConfig, missionInput, ModeInputError } from "./shared.ts";

const ENTRY = /^([a-z0-9][a-z0-9._-]{0,62})#([1-9][0-9]{0,3})$/;

/** `users-api#2` → the item and attempt of one matrix entry. */
export function parseWorkEntry(value: string): { item: string; attempt: number } {
  const match = ENTRY.exec(value.trim());
  if (!match) throw new ModeInputError(`input items ${JSON.stringify(value)}: expected ITEM#ATTEMPT, like users-api#2`);
  return { item: match[1]!, attempt: Number(match[2]) };
}

export async function workMode(deps: ModeDeps, input: { mission: string; items: string; signal?: AbortSignal }): Promise<void> {
  const id = missionInput(input.mission);
  const entry = parseWorkEntry(input.items);
  deps.log.setOutput("mission", id);
  const out = await artifactFolder(deps);
  const { mission } = await loadMission(deps, id);
  const item = mission.items.find((i) => i.id === entry.item);
  const attempt = item?.attempts.find((a) => a.n === entry.attempt);
  if (!item || !attempt || (attempt.status !== "dispatched" && attempt.status !== "running")) {
    const why = `${entry.item}#${entry.attempt} is not in flight (${attempt?.status ?? "unknown attempt"}): nothing to do`;
    deps.log.info(why);
    await deps.log.summary(`naruto ${codeSpan(id)}: ${why}`);
    return;
  }
  const head = await queueHead(deps, mission);
  let finished: AttemptFinished;
  try {
    const config = await missionConfig(deps, mission);
    const ctx = { git: deps.git, repoDir: deps.workspace, commonDir: await gitCommonDir(deps.git, deps.workspace), config, env: deps.env, now: deps.now, onOutput: agentOutput(deps) };
    const order = { item: item.id, attempt: entry.attempt, previousFailure: previousFailure(item, entry.attempt) };
    finished = await deps.log.group(`agent: ${item.id} attempt ${entry.attempt}`, () =>
      runAttempt(ctx, mission, order, { started: async () => undefined, signal: input.signal ?? new AbortController().signal }),
    );
  } catch (error) {
    // naruto's own step failed (config, git): the attempt ends with the reason, not a timeout.
    const reason = `naruto could not run the attempt: ${error instanceof Error ? error.message : String(error)}`;
    finished = { type: "attempt_finished", at: deps.now().toISOString(), item: item.id, attempt: entry.attempt, outcome: { kind: "failed", reason } };
  }
  const o = finished.outcome;
  if (o.kind === "checkpointed") {
    // Only base..checkpoint travels: the integrate job has the queue already.
    const branch = `refs/heads/${workerBranch(id, item.id)}`;
    await gitText(deps.git, { args: ["bundle", "create", join(out, ARTIFACT_FILES.bundle), branch, `^${o.base}`], cwd: deps.workspace });
  }
  const result: WorkResult = {
    schema: "naruto.work-result/v1",
    mission: id,
    item: item.id,
    attempt: entry.attempt,
    outcome: o,
    summary: finished.summary ?? null,
    cost_usd: finished.cost_usd ?? null,
    tokens_in: finished.tokens_in ?? null,
    tokens_out: finished.tokens_out ?? null,
    model: finished.model ?? null,
    commit: o.kind === "checkpointed" ? o.commit : null,
    base: o.kind === "checkpointed" ? o.base : head,
  };
  await writeFile(join(out, ARTIFACT_FILES.result), JSON.stringify(result, null, 2) + "\n");
  deps.log.info(`${item.id}#${entry.attempt}: ${o.kind}`);
  await deps.log.summary(workSummary(mission, item, result));
}

/**
 * The queue head this job checked out, as the local `naruto/<mission>` branch the worker starts
 * from. It must descend from the mission's base: anything else is not this mission's queue.
 */
async function queueHead(deps: ModeDeps, mission: Mission): Promise<string> {
  const head = await gitText(deps.git, { args: ["rev-parse", "--verify", "HEAD^{commit}"], cwd: deps.workspace });
  const { code } = await deps.git({ args: ["merge-base", "--is-ancestor", mission.base.commit, head], cwd: deps.workspace, okCodes: [1] });
  if (code !== 0) throw new ModeInputError(`the checkout (${head.slice(0, 12)}) is not on the queue of ${mission.id}: check out naruto/${mission.id}`);
  await gitText(deps.git, { args: ["update-ref", queueRefName(mission.id), head], cwd: deps.workspace });
  return head;
}

/** The previous attempt's failure for the prompt, as the engine words it (DESIGN.md §5). */
function previousFailure(item: MissionItem, n: number): string | null {
  const previous = item.attempts.find((a) => a.n === n - 1);
  return previous?.reason && previous.status !== "interrupted" ? `attempt ${previous.n}: ${previous.reason}` : null;
}

/**
 * Agent output goes to the job log with every line indented: a line the runner would read as a
 * workflow command (`::set-output`, `::add-mask`) must not come from the agent.
 */
function agentOutput(deps: ModeDeps): (item: string, chunk: Buffer) => void {
  return (_item, chunk) => {
    const text = chunk.toString("utf8").replace(/\n$/, "");
    if (text !== "") deps.log.info(text.split("\n").map((l) => `  | ${l}`).join("\n"));
  };
}

function workSummary(mission: Mission, item: MissionItem, r: WorkResult): string {
  const o = r.outcome;
  const detail =
    o.kind === "checkpointed" ? `checkpoint \`${o.commit.slice(0, 12)}\` changing ${o.changed.length} path(s): ${o.changed.slice(0, 20).map((p) => codeSpan(p)).join(", ")}` :
    o.kind === "out_of_scope" ? `out of scope: ${o.paths.slice(0, 20).map((p) => inlineText(p, 200)).join(", ")}` :
    o.kind === "no_changes" ? "no changes" : inlineText(o.reason, 1000);
  return `### naruto ${codeSpan(mission.id)} · ${codeSpan(item.id)} attempt ${r.attempt}\n\n**${o.kind}** — ${detail}\n\nThe integrate job re-checks this result before anything of it is pushed.\n`;
}
