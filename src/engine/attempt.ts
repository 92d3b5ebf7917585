/**
 * One attempt, for both drivers: a standalone work directory at the queue head (never a work
 * tree of the repository: src/sandbox/work-dir.ts), the agent in the sandbox, the scope-checked
 * checkpoint read by naruto's own git, the item's own verify in the same sandbox, and the
 * `attempt_finished` event that says how it went. The prompt, the agent's output (the last MiB)
 * and its result file are kept under `<git-common-dir>/naruto/attempts/<m>/<item>/<n>/`. Work an
 * attempt did not finish (timeout, crash, cancel) is kept under `refs/naruto/attempts/…`.
 */
import { join } from "node:path";
import { buildPrompt } from "../agent/index.ts";
import { runAgent, type AgentRun } from "../agent/index.ts";
import { outputTail as lastLines } from "../agent/index.ts";
import type { AgentProfile } from "../config/index.ts";
import { gatePolicy } from "../gate/index.ts";
import { queueRefName, readRef } from "../queue/index.ts";
import type { Mission, MissionItem } from "../mission/index.ts";
import type { AttemptOrder, AttemptOutcome, KeptWork, MissionEvent } from "../mission/index.ts";
import { normalizePath, type RepoPath } from "../plan/index.ts";
import { createWorkDir, describeLimitHit, missionWorkFolder, removeWorkDir, retireWorkDir, workRepo, type WorkDir, writeOwnFile } from "../sandbox/index.ts";
import { createAgentLog } from "./agent-log.ts";
import { authFixOf, crashOutcome } from "./attempt-failure.ts";
import { checkpointWorkDir } from "./checkpoint.ts";
import { containmentOf, giveLogin, sandboxLimits } from "./contained.ts";
import type { EngineContext } from "./context.ts";
import { attemptRef, keepUnfinishedWork } from "./keep-work.ts";
import { attemptDir } from "./records.ts";

export { attemptRef } from "./keep-work.ts";

export type AttemptFinished = Extract<MissionEvent, { type: "attempt_finished" }>;

export interface WorkerContext extends EngineContext {
  /** Each chunk of agent output, for a live view. */
  readonly onOutput?: (item: string, chunk: Buffer) => void;
  /**
   * The ref the work of an attempt that did not finish ends up on, as its outcome says: the local
   * ref it is kept at (default), or in a work job on GitHub the branch the publish job keeps it on.
   */
  readonly keptRef?: (kept: { readonly item: string; readonly attempt: number }) => string;
  /**
   * naruto's own value of a ref of its, where the driver keeps one (the local tamper record's
   * ledger): the queue head an attempt starts from, without reading the ref. Null: unknown.
   */
  readonly expectedRef?: (ref: string) => string | null;
  /**
   * Takes work the attempt need not wait for (deleting its work directory) where the driver
   * waits for it before it ends; without it, the attempt waits.
   */
  readonly inBackground?: (work: Promise<void>) => void;
}

const OUTPUT_TAIL = 3000;

/**
 * naruto's own step failed during an attempt (git, the disk): the attempt ends with `message`,
 * and `work` says what became of what the agent had done (null: nothing to keep).
 */
export class AttemptStepError extends Error {
  override readonly name = "AttemptStepError";
  constructor(
    message: string,
    readonly work: KeptWork | null,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

export async function runAttempt(
  ctx: WorkerContext,
  mission: Mission,
  order: AttemptOrder,
  hooks: {
    readonly started: (base: string, runner: string) => Promise<void>;
    /**
     * Once no process of the attempt's will run again (its agent, and its item's verify when it
     * has one, have exited): its agent slot can go to the next attempt while naruto checks and
     * checkpoints what it left (`agent_exited`).
     */
    readonly exited?: () => Promise<void>;
    readonly signal: AbortSignal;
  },
): Promise<AttemptFinished> {
  const item = mission.items.find((i) => i.id === order.item);
  if (!item) throw new Error(`mission ${mission.id} has no item "${order.item}"`);
  // `said`: whose last lines the terminal shows (the item's verify, when it is what failed).
  const finished = (outcome: AttemptOutcome, run?: AgentRun, said: AgentRun | undefined = run): AttemptFinished => ({
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
    // Told on every attempt's end: on GitHub the arbiter learns it from the work jobs.
    ...(ctx.sandbox.runsAsRoot ? { agents_as_root: true } : {}),
    ...(said === undefined || outcome.kind === "checkpointed" ? {} : { output_tail: lastLines(said.output) }),
  });

  const profile = ctx.config.agents[item.agent];
  if (!profile) {
    return finished({ kind: "permanent", cause: "config", reason: `unknown agent profile "${item.agent}": define it under agents: in .github/naruto.yml` });
  }
  const queueRef = queueRefName(mission.id);
  const head = ctx.expectedRef?.(queueRef) ?? (await readRef(ctx.git, ctx.repoDir, queueRef));
  if (head === null) throw new Error(`the queue ${queueRef} is missing`);
  const repo = await workRepo(ctx.git, ctx.repoDir);
  const workDir = await createWorkDir({
    git: ctx.git,
    repo,
    folder: missionWorkFolder(ctx.workRoot, repo, mission.id),
    label: `${item.id}.${order.attempt}`,
    commit: head,
    record: { mission: mission.id, purpose: item.id, attempt: order.attempt },
  });
  // Set when naruto's own step failed and not even keeping the work did: the directory stays.
  let leave = false;
  try {
    await hooks.started(head, `pid ${process.pid}; sandbox ${ctx.sandbox.description}`);
    const records = attemptDir(ctx.commonDir, mission.id, item.id, order.attempt);
    const prompt = buildPrompt({ task: mission.task, item: { ...item, writes: item.writes, reads: item.reads }, previousFailure: order.previousFailure });
    // Kept beside the attempt's other records while the agent starts; a failure to keep it fails the attempt after.
    const promptKept = writeOwnFile(join(records, "prompt.md"), prompt);
    promptKept.catch(() => undefined);
    const refused = await giveLogin(profile, workDir.home, ctx);
    if (refused !== null) {
      await hooks.exited?.();
      return finished({
        kind: "permanent",
        cause: "authentication",
        reason: `its login could not be given to it: ${refused}. naruto does not retry it: it would fail the same way.\n${authFixOf(profile) ?? ""}`.trimEnd(),
      });
    }
    const run = await runContained(ctx, {
      profile,
      command: profile.command,
      workDir,
      prompt,
      mission,
      item,
      attempt: order.attempt,
      signal: hooks.signal,
      records,
      name: "agent",
    });
    await promptKept;
    // Only an agent that exited on its own is followed by its item's verify.
    if (!item.verify || run.outcome !== "exited") await hooks.exited?.();
    const writes = paths(item.writes);
    const hidden = run.leftovers.filter((l) => l.found === "working_directory");
    if (hidden.length > 0) {
      // A process that dropped naruto's tracking variable to outlive the agent: nothing of the attempt counts.
      const work = await keepWork(ctx, { workDir, mission, item, attempt: order.attempt, why: "It left a process running", writes, summary: null });
      return finished(
        {
          kind: "tampered",
          reason: `the agent left ${hidden.length} process(es) running that had dropped naruto's tracking variable (naruto stopped them): ${hidden.map((l) => `${l.pid} ${JSON.stringify(l.command.slice(0, 80))}`).join(", ")}`,
          work,
        },
        run,
      );
    }

    if (run.outcome !== "exited") {
      const why =
        run.outcome === "cancelled"
          ? "stopped: the mission was cancelled or naruto is shutting down"
          : run.outcome === "timed_out"
            ? `timed out after ${minutes(profile.timeout)}`
            : crashReason(run);
      const work = await keepWork(ctx, { workDir, mission, item, attempt: order.attempt, why, writes, summary: run.result?.summary ?? null });
      if (run.outcome === "cancelled") return finished({ kind: "interrupted", reason: why, work }, run);
      if (run.outcome === "timed_out") return finished({ kind: "timed_out", reason: why, work }, run);
      return finished(
        crashOutcome({ run, what: "the agent", why, work, sandboxed: ctx.sandbox.kind === "bwrap", authFix: authFixOf(profile), tail: outputTail(run.output) }),
        run,
      );
    }

    const outcome = await checkpointWorkDir({
      git: ctx.git,
      repoDir: ctx.repoDir,
      workDir,
      mission: mission.id,
      item: { id: item.id, title: item.title, writes, readonly: item.readonly },
      protected: ctx.config.protected,
      allowProtected: ctx.config.allow_protected,
      gate: gatePolicy(ctx.config),
      attempt: order.attempt,
      agent: item.agent,
      ...(run.result?.summary ? { summary: run.result.summary } : {}),
      date: ctx.now(),
      // Kept reachable: a retry moves the worker branch on.
      keepAt: attemptRef(mission.id, item.id, order.attempt),
    });
    switch (outcome.kind) {
      case "no_changes":
        return finished({ kind: "no_changes" }, run);
      case "out_of_scope":
        return finished({ kind: "out_of_scope", paths: [...new Set(outcome.violations.map((v) => `${v.path} (${v.rule})`))] }, run);
      case "checkpointed":
        break;
    }
    if (item.verify) {
      const verify = await runContained(ctx, {
        profile,
        command: item.verify,
        workDir,
        prompt,
        mission,
        item,
        attempt: order.attempt,
        signal: hooks.signal,
        records,
        name: "verify",
      });
      await hooks.exited?.();
      if (verify.outcome === "cancelled")
        return finished({ kind: "interrupted", reason: "stopped during the item's verify: the mission was cancelled or naruto is shutting down" }, run);
      if (verify.outcome === "timed_out")
        return finished({ kind: "failed", reason: `the item's verify command failed (timed out):\n${outputTail(verify.output)}` }, run, verify);
      if (verify.outcome !== "exited") {
        const why = `the item's verify command failed (${crashReason(verify, "it")})`;
        return finished(
          crashOutcome({
            run: verify,
            what: "the item's verify command",
            why,
            work: null,
            sandboxed: ctx.sandbox.kind === "bwrap",
            authFix: null,
            tail: outputTail(verify.output),
          }),
          run,
          verify,
        );
      }
    }
    return finished({ kind: "checkpointed", commit: outcome.commit, base: outcome.base, changed: [...outcome.changed] }, run);
  } catch (error) {
    // naruto's own step failed (git, the disk): whatever the agent did is kept before the
    // directory goes, or the directory stays and the error says where.
    const message = error instanceof Error ? error.message : String(error);
    const work = await keepWork(ctx, {
      workDir,
      mission,
      item,
      attempt: order.attempt,
      why: `naruto failed: ${message}`,
      writes: paths(item.writes),
      summary: null,
    }).catch((keepError: unknown): KeptWork => {
      leave = true;
      return {
        kind: "not_kept",
        why: `keeping it failed too, so its work directory is left at ${workDir.path} (${keepError instanceof Error ? keepError.message : String(keepError)})`,
      };
    });
    throw new AttemptStepError(message, work, { cause: error });
  } finally {
    if (!leave && ctx.inBackground) ctx.inBackground((await retireWorkDir(workDir)).removed);
    else if (!leave) await removeWorkDir(workDir);
  }
}

interface ContainedRun {
  readonly profile: AgentProfile;
  readonly command: string;
  readonly workDir: WorkDir;
  readonly prompt: string;
  readonly mission: Mission;
  readonly item: MissionItem;
  readonly attempt: number;
  readonly signal: AbortSignal;
  /** The attempt's records folder: the log and the result file are kept there. */
  readonly records: string;
  readonly name: "agent" | "verify";
}

/**
 * Runs the agent, or the item's verify command, which a plan from a comment may set and which is
 * therefore treated like the agent itself (docs/architecture.md): same sandbox, same environment rules.
 */
async function runContained(ctx: WorkerContext, r: ContainedRun): Promise<AgentRun> {
  const log = createAgentLog(join(r.records, r.name === "agent" ? "output.log" : "verify-output.log"));
  const containment = await containmentOf(r.profile, ctx);
  const resultName = r.name === "agent" ? "result.json" : "verify-result.json";
  let run: AgentRun | null = null;
  try {
    run = await runAgent({
      command: r.command,
      sandbox: ctx.sandbox,
      workDir: r.workDir,
      prompt: r.prompt,
      env: ctx.env,
      allowEnv: r.profile.env,
      network: containment.network,
      readOnly: containment.readOnly,
      links: containment.links,
      limits: sandboxLimits(ctx.config.limits),
      mission: r.mission.id,
      item: r.item.id,
      attempt: r.attempt,
      writes: r.item.writes,
      timeoutMs: r.profile.timeout,
      signal: r.signal,
      onOutput: (chunk: Buffer) => {
        log.write(chunk);
        ctx.onOutput?.(r.item.id, chunk);
      },
    });
    return run;
  } finally {
    await log.close();
    if (run?.resultText != null) await writeOwnFile(join(r.records, resultName), run.resultText);
  }
}

/** Keeps what an attempt that did not finish left; says where (null: it had changed nothing). */
async function keepWork(
  ctx: WorkerContext,
  a: { workDir: WorkDir; mission: Mission; item: MissionItem; attempt: number; why: string; writes: RepoPath[]; summary: string | null },
): Promise<KeptWork | null> {
  // Within the item's scope it becomes a checkpoint-shaped commit on the worker branch (the
  // Action's work job carries it to the queue and publish jobs that way); otherwise a plain commit.
  const outcome = await checkpointWorkDir({
    git: ctx.git,
    repoDir: ctx.repoDir,
    workDir: a.workDir,
    mission: a.mission.id,
    item: { id: a.item.id, title: a.item.title, writes: a.writes, readonly: a.item.readonly },
    protected: ctx.config.protected,
    allowProtected: ctx.config.allow_protected,
    gate: gatePolicy(ctx.config),
    attempt: a.attempt,
    agent: a.item.agent,
    ...(a.summary ? { summary: a.summary } : {}),
    date: ctx.now(),
    keepAt: attemptRef(a.mission.id, a.item.id, a.attempt),
  });
  let kept: { ref: string; commit: string } | null = null;
  if (outcome.kind === "checkpointed") {
    kept = { ref: attemptRef(a.mission.id, a.item.id, a.attempt), commit: outcome.commit };
  } else if (outcome.kind === "out_of_scope") {
    kept = await keepUnfinishedWork({
      git: ctx.git,
      repoDir: ctx.repoDir,
      workDir: a.workDir,
      mission: a.mission.id,
      item: a.item.id,
      attempt: a.attempt,
      why: a.why,
      now: ctx.now,
      maxFileSize: ctx.config.limits.max_file_size,
    });
  }
  if (kept === null) return null;
  const ref = ctx.keptRef ? ctx.keptRef({ item: a.item.id, attempt: a.attempt }) : kept.ref;
  const outside = outcome.kind === "out_of_scope" ? [...new Set(outcome.violations.map((v) => `${v.path} (${v.rule})`))] : [];
  return { kind: "kept", ref, commit: kept.commit, outside };
}

function paths(written: readonly string[]): RepoPath[] {
  return written.map((p) => {
    const r = normalizePath(p);
    if (!r.ok) throw new Error(`the stored plan has an invalid path ${JSON.stringify(p)}: ${r.message}`);
    return r.value;
  });
}

function crashReason(run: AgentRun, who = "the agent"): string {
  if (run.limit) return describeLimitHit(run.limit, who);
  if (run.signal) return `killed by ${run.signal}`;
  if (run.exitCode === null) return `could not start: ${run.notes.join("; ")}`;
  return `exited with code ${run.exitCode}`;
}

function outputTail(output: string): string {
  return output.length <= OUTPUT_TAIL ? output : `…${output.slice(-OUTPUT_TAIL)}`;
}

function minutes(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}
