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
import type { AgentRun } from "../agent/index.ts";
import { outputTail as lastLines } from "../agent/index.ts";
import { gatePolicy } from "../gate/index.ts";
import { queueRefName, readRef } from "../queue/index.ts";
import type { Mission } from "../mission/index.ts";
import type { AttemptOrder, AttemptOutcome, KeptWork, MissionEvent } from "../mission/index.ts";
import { normalizePath, type RepoPath } from "../plan/index.ts";
import { createWorkDir, missionWorkFolder, removeWorkDir, retireWorkDir, workRepo, writeOwnFile } from "../sandbox/index.ts";
import { authFixOf, crashOutcome, crashReason, minutes, outputTail } from "./attempt-failure.ts";
import { checkpointWorkDir } from "./checkpoint.ts";
import { giveLogin } from "./contained.ts";
import type { WorkerContext } from "./context.ts";
import { attemptRef, keepWork } from "./keep-work.ts";
import { attemptDir } from "./records.ts";
import { runContained } from "./run-contained.ts";

export { attemptRef } from "./keep-work.ts";

export type AttemptFinished = Extract<MissionEvent, { type: "attempt_finished" }>;

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
    // The agent, then its item's verify: each contained the same way, in the same work directory.
    const contained = (name: "agent" | "verify", command: string) =>
      runContained(ctx, { profile, command, workDir, prompt, mission, item, attempt: order.attempt, signal: hooks.signal, records, name });
    const run = await contained("agent", profile.command);
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
      const verify = await contained("verify", item.verify);
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

function paths(written: readonly string[]): RepoPath[] {
  return written.map((p) => {
    const r = normalizePath(p);
    if (!r.ok) throw new Error(`the stored plan has an invalid path ${JSON.stringify(p)}: ${r.message}`);
    return r.value;
  });
}
