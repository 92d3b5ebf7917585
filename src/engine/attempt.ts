/**
 * One attempt on this machine: a work tree at the queue head, the agent as a process tree, the
 * scope-checked checkpoint, the item's own verify, and the `attempt_finished` event that says how
 * it went. Whatever the agent left is kept under `refs/naruto/attempts/…`, even when the attempt
 * failed, so a crash or a timeout never throws work away.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildPrompt } from "../agent/prompt.ts";
import { runAgent, type AgentRun } from "../agent/run-agent.ts";
import type { AgentProfile, Config } from "../config/index.ts";
import { finishAttempt, recreateWorktree, removeWorktree } from "../git/index.ts";
import { queueRefName, readRef } from "../git/queue-ref.ts";
import { gitText, type Git } from "../git/run-git.ts";
import type { Mission, MissionItem } from "../mission/document.ts";
import type { AttemptOrder, AttemptOutcome, MissionEvent } from "../mission/events.ts";
import { normalizePath, type RepoPath } from "../plan/paths.ts";
import { attemptDir } from "./records.ts";

export type AttemptFinished = Extract<MissionEvent, { type: "attempt_finished" }>;

export interface WorkerContext {
  readonly git: Git;
  readonly repoDir: string;
  /** `git rev-parse --git-common-dir`, absolute. */
  readonly commonDir: string;
  readonly config: Config;
  /** The runner's environment, from which only allowlisted names reach an agent. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => Date;
  /** Each chunk of agent output, for a live view or a log. */
  readonly onOutput?: (item: string, chunk: Buffer) => void;
  /**
   * Where the work of an attempt that did not finish is kept, as its reason says: the local ref
   * (default), or in a work job on GitHub the branch the integrate job keeps it on.
   */
  readonly keptAt?: (kept: { readonly item: string; readonly attempt: number; readonly ref: string; readonly commit: string }) => string;
}

/** Refs that move while attempts run side by side on one machine; see `checkHistory`. */
const SHARED_REFS = ["refs/heads/naruto/", "refs/naruto/"];
const VERIFY_OUTPUT_TAIL = 3000;

export async function runAttempt(
  ctx: WorkerContext,
  mission: Mission,
  order: AttemptOrder,
  hooks: { readonly started: (base: string, runner: string) => Promise<void>; readonly signal: AbortSignal },
): Promise<AttemptFinished> {
  const item = mission.items.find((i) => i.id === order.item);
  if (!item) throw new Error(`mission ${mission.id} has no item "${order.item}"`);
  const finished = (outcome: AttemptOutcome, run?: AgentRun): AttemptFinished => ({
    type: "attempt_finished",
    at: ctx.now().toISOString(),
    item: item.id,
    attempt: order.attempt,
    outcome,
    summary: run?.result?.summary ?? null,
    cost_usd: run?.result?.cost_usd ?? null,
    tokens_in: run?.result?.tokens_in ?? null,
    tokens_out: run?.result?.tokens_out ?? null,
    model: run?.result?.model ?? null,
  });

  const profile = ctx.config.agents[item.agent];
  if (!profile) {
    return finished({ kind: "failed", reason: `unknown agent profile "${item.agent}": define it under agents: in .github/naruto.yml` });
  }
  const queueRef = queueRefName(mission.id);
  const head = await readRef(ctx.git, ctx.repoDir, queueRef);
  if (head === null) throw new Error(`the queue ${queueRef} is missing`);
  const target = { git: ctx.git, repoDir: ctx.repoDir, mission: mission.id, item: item.id };
  const worktree = await recreateWorktree({ ...target, at: head });
  await hooks.started(head, `pid ${process.pid}`);
  try {
    const dir = attemptDir(ctx.commonDir, mission.id, item.id, order.attempt);
    await mkdir(dir, { recursive: true });
    const promptFile = join(dir, "prompt.md");
    const writes = paths(item.writes);
    await writeFile(promptFile, buildPrompt({ task: mission.task, item: { ...item, writes: item.writes, reads: item.reads }, previousFailure: order.previousFailure }));
    const run = await runProfile(ctx, { profile, command: profile.command, cwd: worktree.path, dir, promptFile, mission, item, attempt: order.attempt, signal: hooks.signal, name: "agent" });
    if (run.outcome === "cancelled") return finished({ kind: "interrupted", reason: "stopped: the mission was cancelled or naruto is shutting down" }, run);

    const outcome = await finishAttempt({
      git: ctx.git,
      worktree,
      item: { id: item.id, title: item.title, writes, readonly: item.readonly },
      mission: mission.id,
      protected: ctx.config.protected,
      allowProtected: ctx.config.allow_protected,
      attempt: order.attempt,
      agent: item.agent,
      ...(run.result?.summary ? { summary: run.result.summary } : {}),
      sharedRefs: SHARED_REFS,
      date: ctx.now(),
    });
    const kept = outcome.kind === "checkpointed" ? await keepAttempt(ctx, mission, item, order.attempt, outcome.commit) : null;

    if (run.outcome !== "exited") {
      const why = run.outcome === "timed_out" ? `timed out after ${minutes(profile.timeout)}` : crashReason(run);
      const note = kept ? keptNote(kept) : "";
      return finished(run.outcome === "timed_out" ? { kind: "timed_out", reason: why + note } : { kind: "failed", reason: `${why}${note}\n${outputTail(run.output)}` }, run);
    }
    switch (outcome.kind) {
      case "no_changes":
        return finished({ kind: "no_changes" }, run);
      case "out_of_scope":
        return finished({ kind: "out_of_scope", paths: [...new Set(outcome.violations.map((v) => `${v.path} (${v.rule})`))] }, run);
      case "invalid_history":
        return finished({ kind: "failed", reason: `the agent changed git history: ${outcome.reason}` }, run);
      case "checkpointed":
        break;
    }
    if (item.verify) {
      const verify = await runProfile(ctx, { profile, command: item.verify, cwd: worktree.path, dir, promptFile, mission, item, attempt: order.attempt, signal: hooks.signal, name: "verify" });
      if (verify.outcome !== "exited") {
        return finished({ kind: "failed", reason: `the item's verify command failed (${verify.outcome === "timed_out" ? "timed out" : crashReason(verify)}):\n${outputTail(verify.output)}` }, run);
      }
    }
    return finished({ kind: "checkpointed", commit: outcome.commit, base: outcome.base, changed: [...outcome.changed] }, run);
  } finally {
    await removeWorktree({ ...target, deleteBranch: false });
  }
}

interface ProfileRun {
  readonly profile: AgentProfile;
  readonly command: string;
  readonly cwd: string;
  readonly dir: string;
  readonly promptFile: string;
  readonly mission: Mission;
  readonly item: MissionItem;
  readonly attempt: number;
  readonly signal: AbortSignal;
  readonly name: "agent" | "verify";
}

/**
 * Runs the agent, or the item's verify command, which a plan from a comment may set and which is
 * therefore treated like the agent itself (DESIGN.md §8): same sandbox, same environment rules.
 */
function runProfile(ctx: WorkerContext, r: ProfileRun): Promise<AgentRun> {
  return runAgent({
    command: r.command,
    cwd: r.cwd,
    env: ctx.env,
    allowEnv: r.profile.env,
    mission: r.mission.id,
    item: r.item.id,
    attempt: r.attempt,
    writes: r.item.writes,
    promptFile: r.promptFile,
    resultFile: join(r.dir, r.name === "agent" ? "result.json" : "verify-result.json"),
    timeoutMs: r.profile.timeout,
    signal: r.signal,
    ...(ctx.onOutput ? { onOutput: (chunk: Buffer) => ctx.onOutput?.(r.item.id, chunk) } : {}),
  });
}

/** Keeps an attempt's checkpoint reachable after its branch is re-created for a retry. */
async function keepAttempt(ctx: WorkerContext, mission: Mission, item: MissionItem, attempt: number, commit: string): Promise<string> {
  const ref = attemptRef(mission.id, item.id, attempt);
  await gitText(ctx.git, { args: ["update-ref", ref, commit], cwd: ctx.repoDir });
  return ctx.keptAt ? ctx.keptAt({ item: item.id, attempt, ref, commit }) : `${ref} (${commit.slice(0, 12)})`;
}

/** Where an attempt's work is kept in the repository it ran in. */
export function attemptRef(mission: string, item: string, attempt: number): string {
  return `refs/naruto/attempts/${mission}/${item}/${attempt}`;
}

/** The words of a reason that say where the work of an attempt that did not finish is kept. */
export function keptNote(where: string): string {
  return `; its partial work is kept at ${where}`;
}

function paths(written: readonly string[]): RepoPath[] {
  return written.map((p) => {
    const r = normalizePath(p);
    if (!r.ok) throw new Error(`the stored plan has an invalid path ${JSON.stringify(p)}: ${r.message}`);
    return r.value;
  });
}

function crashReason(run: AgentRun): string {
  if (run.signal) return `killed by ${run.signal}`;
  if (run.exitCode === null) return `could not start: ${run.notes.join("; ")}`;
  return `exited with code ${run.exitCode}`;
}

function outputTail(output: string): string {
  return output.length <= VERIFY_OUTPUT_TAIL ? output : `…${output.slice(-VERIFY_OUTPUT_TAIL)}`;
}

function minutes(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}
