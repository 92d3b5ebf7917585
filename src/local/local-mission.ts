/**
 * Starting and resuming a mission on this machine: resolves the base, reads the config from the
 * base commit (reviewed code, not the dirty work tree), creates the queue branch, and hands the
 * mission to the driver. The user's branch, index and work tree are never touched.
 */
import { join } from "node:path";
import { loadConfig, formatConfigErrors, type Config } from "../config/index.ts";
import { createQueueBranch } from "../git/queue.ts";
import { gitText, type Git } from "../git/run-git.ts";
import { createLocalMissionStore } from "../git/mission-store.ts";
import type { Mission } from "../mission/document.ts";
import type { MissionEvent } from "../mission/events.ts";
import { resumption } from "../mission/resume.ts";
import { MissionNotFoundError } from "../mission/store.ts";
import { isMissionTerminal } from "../mission/status.ts";
import { checkPlan, formatPlanError, type CheckResult } from "../plan/index.ts";
import { plannedEvent } from "../engine/planned-event.ts";
import { driveMission, type DriverContext } from "./driver.ts";
import { gitCommonDir, missionDir } from "../engine/records.ts";
import { keepLeftoverWork } from "./leftover-work.ts";
import { holdMission } from "./mission-lock.ts";
import { stopOrphanAgents } from "./orphan-agents.ts";
import { planCheckOptions, runPlanner } from "../engine/planner.ts";
import type { Progress } from "./progress.ts";
import { loadRunOverrides, saveRunOverrides } from "./run-overrides.ts";
import { serialWorktrees } from "./serial-worktrees.ts";
import { writeReports } from "./reports.ts";

export interface LocalDeps {
  readonly git: Git;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => Date;
  readonly randomId: () => string;
  readonly progress: Progress;
  readonly shutdown?: AbortSignal;
  readonly tickMs?: number;
}

export interface RunRequest {
  readonly repoDir: string;
  /** An explicit plan (YAML, JSON or markdown with a `naruto` block); null: the planner agent plans. */
  readonly planText: string | null;
  readonly task: string | null;
  readonly baseRef: string;
  /** Replaces the `default` agent profile's command. */
  readonly agentCommand: string | null;
  readonly parallel: number | null;
  readonly verify: string | null;
  readonly strict: boolean;
  /** A config to use instead of `.github/naruto.yml` at the base (the demo's). */
  readonly config?: Config;
}

/** The config is invalid; the message lists every bad field. */
export class ConfigInvalidError extends Error {
  override readonly name = "ConfigInvalidError";
}

export async function runLocalMission(given: LocalDeps, req: RunRequest): Promise<Mission> {
  const deps = await withSerialWorktrees(given, req.repoDir);
  const { git, repoDir } = { git: deps.git, repoDir: req.repoDir };
  const commit = await gitText(git, { args: ["rev-parse", "--verify", "--end-of-options", `${req.baseRef}^{commit}`], cwd: repoDir });
  const refName = req.baseRef === "HEAD" ? await gitText(git, { args: ["rev-parse", "--abbrev-ref", "HEAD"], cwd: repoDir }) : req.baseRef;
  const config = withOverrides(req.config ?? (await configAt(git, repoDir, commit)), { agentCommand: req.agentCommand, parallel: req.parallel });
  const id = `m-${deps.randomId()}`;
  const release = await holdMission(await gitCommonDir(git, repoDir), id);
  try {
    return await startMission(deps, req, { id, commit, refName, config });
  } finally {
    await release();
  }
}

async function startMission(deps: LocalDeps, req: RunRequest, m: { id: string; commit: string; refName: string; config: Config }): Promise<Mission> {
  const { git, repoDir } = { git: deps.git, repoDir: req.repoDir };
  const { id, commit, refName, config } = m;
  const queue = await createQueueBranch({ git, repoDir, mission: id, base: commit });
  await saveRunOverrides(await gitCommonDir(git, repoDir), id, { agent_command: req.agentCommand, verify: req.verify });
  const task = req.task ?? firstTitle(req.planText) ?? "run the plan";
  const requested: MissionEvent = {
    type: "requested",
    at: deps.now().toISOString(),
    id,
    task,
    source: { kind: "local", cwd: repoDir },
    base: { ref: refName, commit },
    queue_branch: queue.ref.replace(/^refs\/heads\//, ""),
    // Kept in the state: a run stopped before planning plans the same text when resumed.
    plan_text: req.planText,
    settings: {
      max_parallel: config.limits.max_parallel,
      max_attempts: config.limits.max_attempts,
      item_timeout_ms: clockBackstop(config),
      mission_timeout_ms: config.limits.mission_timeout,
      batch: config.queue.batch,
      approval: false,
      max_cost_usd: config.limits.max_cost_usd,
      strict: req.strict,
    },
  };
  const ctx = await driverContext(deps, repoDir, config, req.verify ?? config.queue.verify, req.planText);
  return driveMission(ctx, id, [requested]);
}

export async function resumeLocalMission(given: LocalDeps, input: { repoDir: string; id: string; config?: Config; verify?: string | null }): Promise<Mission> {
  const deps = await withSerialWorktrees(given, input.repoDir);
  const store = createLocalMissionStore({ git: deps.git, repoDir: input.repoDir });
  const stored = await store.load(input.id);
  if (!stored) throw new MissionNotFoundError(input.id);
  if (isMissionTerminal(stored.mission.status)) return stored.mission;
  // One driver at a time: a live run or resume of the mission holds it, and this one refuses.
  const release = await holdMission(await gitCommonDir(deps.git, input.repoDir), input.id);
  try {
    // Read again under the lock: the holder that just let go may have moved it on.
    const held = await store.load(input.id);
    if (!held) throw new MissionNotFoundError(input.id);
    if (isMissionTerminal(held.mission.status)) return held.mission;
    return await resumeHeld(deps, input, held.mission);
  } finally {
    await release();
  }
}

async function resumeHeld(deps: LocalDeps, input: { repoDir: string; config?: Config; verify?: string | null }, m: Mission): Promise<Mission> {
  // What the stopped run left: its agents, still running, and their unfinished work.
  const orphans = await stopOrphanAgents(m);
  const work = await keepLeftoverWork({ git: deps.git, repoDir: input.repoDir, commonDir: await gitCommonDir(deps.git, input.repoDir), mission: m, now: deps.now });
  // The run's --agent and --verify hold for the rest of the mission (see run-overrides.ts).
  const overrides = await loadRunOverrides(await gitCommonDir(deps.git, input.repoDir), m.id);
  const config = withOverrides(input.config ?? (await configAt(deps.git, input.repoDir, m.base.commit)), { agentCommand: overrides.agent_command, parallel: null });
  const ctx = await driverContext(deps, input.repoDir, config, input.verify ?? overrides.verify ?? config.queue.verify, m.plan_text);
  const r = resumption(m, deps.now().toISOString(), { stoppedProcesses: orphans.length, work });
  const first: MissionEvent[] = [...r.events];
  if (r.plan) first.push(await ctx.plan(m));
  return driveMission(ctx, m.id, first, { checkpoints: r.checkpoints, review: r.review });
}

async function driverContext(deps: LocalDeps, repoDir: string, config: Config, verify: string | null, planText: string | null): Promise<DriverContext> {
  const commonDir = await gitCommonDir(deps.git, repoDir);
  return {
    git: deps.git,
    repoDir,
    commonDir,
    store: createLocalMissionStore({ git: deps.git, repoDir }),
    config,
    verify,
    env: deps.env,
    now: deps.now,
    progress: deps.progress,
    ...(deps.shutdown ? { shutdown: deps.shutdown } : {}),
    ...(deps.tickMs ? { tickMs: deps.tickMs } : {}),
    plan: (m) => makePlan({ deps, repoDir, commonDir, config, planText, mission: m }),
    report: async (m) => {
      await writeReports(commonDir, m);
    },
  };
}

/**
 * The engine's clock times out an attempt that shows no result after `item_timeout_ms`; on
 * GitHub that catches a job that vanished. Here the worker times its agent out itself, with the
 * agent profile's own timeout, and then keeps the partial work and says how long it waited.
 * The clock is only the backstop behind it: later than the longest profile timeout, plus time
 * to stop the agent's process tree and make the checkpoint.
 */
export const BACKSTOP_MARGIN_MS = 60_000;

function clockBackstop(config: Config): number {
  const longest = Math.max(config.limits.item_timeout, ...Object.values(config.agents).map((a) => a.timeout));
  return longest + BACKSTOP_MARGIN_MS;
}

/** Attempts, verification and review share one repository (and other runs may too): see serial-worktrees.ts. */
async function withSerialWorktrees(deps: LocalDeps, repoDir: string): Promise<LocalDeps> {
  const lockFile = join(await gitCommonDir(deps.git, repoDir), "naruto", "worktree.lock");
  return { ...deps, git: serialWorktrees(deps.git, { lockFile }) };
}

/** The `planned` event for an explicit plan, or the planner agent's plan. */
async function makePlan(input: { deps: LocalDeps; repoDir: string; commonDir: string; config: Config; planText: string | null; mission: Mission }): Promise<MissionEvent> {
  const { deps, config, mission } = input;
  const at = () => deps.now().toISOString();
  let check: CheckResult;
  if (input.planText !== null) {
    check = checkPlan(input.planText, planCheckOptions(config, mission.settings.strict));
    if (!check.ok) return { type: "planning_failed", at: at(), reason: check.errors.map(formatPlanError).join("\n") };
  } else {
    const dir = join(missionDir(input.commonDir, mission.id), "planner");
    const result = await runPlanner({ git: deps.git, repoDir: input.repoDir, dir, config, mission, env: deps.env });
    if (!result.ok) return { type: "planning_failed", at: at(), reason: result.reason };
    check = result.check;
  }
  return plannedEvent(check, at());
}

/** `.github/naruto.yml` as committed at the base; defaults when there is none. */
export async function configAt(git: Git, repoDir: string, commit: string): Promise<Config> {
  const { stdout, code } = await git({ args: ["cat-file", "blob", `${commit}:.github/naruto.yml`], cwd: repoDir, okCodes: [128] });
  const loaded = loadConfig(code === 0 ? stdout.toString("utf8") : null);
  if (!loaded.ok) throw new ConfigInvalidError(`the config is invalid:\n${formatConfigErrors(loaded.errors)}`);
  return loaded.config;
}

function withOverrides(config: Config, req: { agentCommand: string | null; parallel: number | null }): Config {
  const agents = { ...config.agents };
  const base = agents["default"];
  if (req.agentCommand !== null && base) agents["default"] = { ...base, command: req.agentCommand, preset: null };
  const limits = req.parallel !== null ? { ...config.limits, max_parallel: req.parallel } : config.limits;
  return { ...config, agents, limits };
}

function firstTitle(planText: string | null): string | null {
  if (planText === null) return null;
  const check = checkPlan(planText);
  return check.plan?.title || null;
}
