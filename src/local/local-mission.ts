/**
 * Starting and resuming a mission on this machine: resolves the base, reads the config from the
 * base commit (reviewed code, not the dirty work tree), creates the queue branch, and hands the
 * mission to the driver. The user's branch, index and work tree are never touched.
 */
import { PRESET_AUTH, type Config, type SandboxMode } from "../config/index.ts";
import { createQueueBranch } from "../queue/index.ts";
import type { Git } from "../git/index.ts";
import { createLocalMissionStore } from "../store/index.ts";
import type { Mission } from "../mission/index.ts";
import type { MissionEvent } from "../mission/index.ts";
import { resumption } from "../mission/index.ts";
import { MissionNotFoundError } from "../mission/index.ts";
import { isMissionTerminal } from "../mission/index.ts";
import { checkPlan, formatPlanError, type CheckResult } from "../plan/index.ts";
import type { EngineContext } from "../engine/index.ts";
import { plannedEvent } from "../engine/index.ts";
import { driveMission, type DriverContext } from "./driver.ts";
import { gitCommonDir } from "../engine/index.ts";
import { configAt } from "./config-at.ts";
import { keepLeftoverWork } from "./leftover-work.ts";
import { holdMission } from "./mission-lock.ts";
import { stopOrphanAgents } from "./orphan-agents.ts";
import { planCheckOptions, runPlanner } from "../engine/index.ts";
import { PLANNER_OUTPUT, type Progress } from "./progress.ts";
import { loadRunOverrides, saveRunOverrides } from "./run-overrides.ts";
import { writeReports } from "./reports.ts";
import { chooseSandbox, networkWarning } from "../sandbox/index.ts";
import type { Sandbox } from "../sandbox/index.ts";
import { defaultWorkRoot, sandboxUserFor, workRepo } from "../sandbox/index.ts";
import { resolveAgentCommand } from "./agent-command.ts";
import { checkAgentsAuthenticated, type Probe } from "./auth-check.ts";
import { unpassedVariables } from "./unpassed-variables.ts";
import {
  checkAgentsInstalled,
  checkedPlan,
  checkGivenReadPaths,
  checkProgramsShown,
  checkReadPaths,
  profilesToRun,
  resolveBase,
  uncommittedNote,
} from "./preflight.ts";
import { createTamperWatch, type TamperWatch } from "./tamper-watch.ts";
import { createRedactor, passedNames, redactingStore, secretValues } from "../redact/index.ts";

export interface LocalDeps {
  readonly git: Git;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => Date;
  readonly randomId: () => string;
  readonly progress: Progress;
  readonly shutdown?: AbortSignal;
  readonly tickMs?: number;
  /** The Node.js running naruto (`process.execPath`), shown read-only to agents. */
  readonly nodePath: string | null;
  /** The working directory of the command (relative `--workdir` paths are resolved against it). */
  readonly cwd: string;
  /** Picks the sandbox for a mode (default: bubblewrap when it works, see src/sandbox/choose.ts). */
  readonly chooseSandbox?: (mode: SandboxMode) => Promise<Sandbox>;
  /** Told the mission's id as soon as it has one (the CLI names it when stopped). */
  readonly onMission?: (id: string) => void;
  /** Told when the drive stops its agents because the mission was cancelled (the CLI then sets a deadline on stopping). */
  readonly onCancelled?: () => void;
  /** Runs a preset CLI's offline credentials probe (default: as a child process, see auth-check.ts). */
  readonly probe?: Probe;
}

export interface RunRequest {
  readonly repoDir: string;
  /** An explicit plan (YAML, JSON or markdown with a `naruto` block); null: the planner agent plans. */
  readonly planText: string | null;
  readonly task: string | null;
  readonly baseRef: string;
  /** Replaces the `default` agent profile's command. */
  readonly agentCommand: string | null;
  /** `--read`: absolute paths `agentCommand` needs, shown read-only in its sandbox. */
  readonly agentRead?: readonly string[];
  /** `--login`: every preset profile uses its CLI's login on this machine. */
  readonly login?: boolean;
  readonly parallel: number | null;
  readonly verify: string | null;
  readonly strict: boolean;
  /** `--sandbox`: instead of the config's `sandbox:`. */
  readonly sandbox?: SandboxMode | null;
  /** `--workdir`: where work directories are made, instead of the config's `workdir:` or the cache. */
  readonly workdir?: string | null;
  /** The plan's file as the user named it (`-`: standard input), for messages. */
  readonly planFile?: string;
  /** A config to use instead of `.github/naruto.yml` at the base (the demo's). */
  readonly config?: Config;
}

export async function runLocalMission(deps: LocalDeps, req: RunRequest): Promise<Mission> {
  const { git, repoDir } = { git: deps.git, repoDir: req.repoDir };
  // Everything is checked before anything is made: a refused run leaves no mission and no branch.
  // What only reads (git's answers, the sandbox's probe) is asked at once, and each answer is
  // taken where it was always taken: a refused run still says first what it said first.
  // Asked once: every record of the run is under it.
  const commonDirAnswer = early(gitCommonDir(git, repoDir));
  // What the work directories need of the repository (asked once per process): ready when the first attempt starts.
  early(workRepo(git, repoDir));
  const { commit, refName } = await resolveBase(git, repoDir, req.baseRef);
  const uncommittedAnswer = early(uncommittedNote(git, repoDir, commit, req.baseRef === "HEAD" ? commit : undefined));
  const configured = req.config ?? (await configAt(git, repoDir, commit));
  // Checked before anything is made: a required sandbox that is missing fails the run (startMission).
  const sandbox = early(pickSandbox(deps, req.sandbox ?? configured.sandbox));
  const plan = req.planText === null ? null : checkedPlan(req.planText, configured, req.strict, req.planFile ?? null);
  // `--agent` names files as the user's shell sees them; the agent sees them from its work directory.
  await checkGivenReadPaths(req.agentRead ?? []);
  const agent = req.agentCommand === null ? null : await resolveAgentCommand({ git, repoDir, cwd: deps.cwd, commit, command: req.agentCommand });
  const resolved: RunRequest = agent === null ? req : { ...req, agentCommand: agent.command, agentRead: [...(req.agentRead ?? []), ...agent.files] };
  const config = withOverrides(configured, {
    agentCommand: resolved.agentCommand,
    agentRead: resolved.agentRead ?? [],
    parallel: req.parallel,
    login: req.login ?? false,
  });
  const profiles = profilesToRun(config, plan);
  await checkAgentsInstalled(config, profiles, deps.env.PATH);
  // A sandbox that will not start is refused where it always was (startMission): here only its user counts.
  const chosen = await sandbox.catch(() => null);
  await checkReadPaths(config, profiles, deps.env.HOME, chosen?.kind === "bwrap" ? sandboxUserFor(process.getuid?.()) : null);
  await checkProgramsShown(config, profiles, deps.env, [await commonDirAnswer]);
  await checkAgentsAuthenticated(config, profiles, { env: deps.env, now: deps.now, ...(deps.probe ? { probe: deps.probe } : {}) });
  const id = `m-${deps.randomId()}`;
  deps.onMission?.(id);
  const commonDir = await commonDirAnswer;
  const release = await holdMission(commonDir, id);
  try {
    return await startMission(deps, resolved, {
      id,
      commit,
      refName,
      config,
      title: plan?.plan?.title || null,
      commonDir,
      sandbox,
      uncommitted: uncommittedAnswer,
      unpassed: unpassedVariables(config, profiles, deps.env),
    });
  } finally {
    await release();
  }
}

async function startMission(
  deps: LocalDeps,
  req: RunRequest,
  m: {
    id: string;
    commit: string;
    refName: string;
    config: Config;
    title: string | null;
    commonDir: string;
    sandbox: Promise<Sandbox>;
    uncommitted: Promise<string | null>;
    unpassed: readonly string[];
  },
): Promise<Mission> {
  const repoDir = req.repoDir;
  const { id, commit, refName, config, commonDir } = m;
  const run = {
    agent_command: req.agentCommand,
    agent_read: [...(req.agentRead ?? [])],
    verify: req.verify,
    sandbox: req.sandbox ?? null,
    workdir: defaultWorkRoot(deps.env, { override: req.workdir ?? config.workdir, cwd: deps.cwd }),
    login: req.login ?? false,
  };
  const sandbox = await m.sandbox;
  if (sandbox.kind === "none") deps.progress.error(new Error(unsandboxedWarning(sandbox)));
  const hostNetwork = networkWarning(sandbox);
  if (hostNetwork !== null) deps.progress.error(new Error(hostNetwork));
  // The record is taken before the mission makes anything: every ref of it is naruto's from here on.
  const tamper = await watchFor(deps, { repoDir, commonDir }, id, sandbox);
  const git = tamper.git;
  const queue = await createQueueBranch({ git, repoDir, mission: id, base: commit });
  await saveRunOverrides(commonDir, id, run);
  // Said before the first agent starts; `git status` of a large work tree takes a while, and
  // nothing above waits for it.
  const uncommitted = await m.uncommitted;
  if (uncommitted !== null) deps.progress.error(new Error(uncommitted));
  for (const line of m.unpassed) deps.progress.error(new Error(line));
  const task = req.task ?? m.title ?? "run the plan";
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
    sandbox: sandbox.description,
    ...(sandbox.runsAsRoot ? { agents_as_root: true } : {}),
    settings: {
      max_parallel: config.limits.max_parallel,
      max_attempts: config.limits.max_attempts,
      item_timeout_ms: clockBackstop(config),
      queue_timeout_ms: config.limits.queue_timeout,
      mission_timeout_ms: config.limits.mission_timeout,
      batch: config.queue.batch,
      approval: false,
      max_cost_usd: config.limits.max_cost_usd,
      strict: req.strict,
    },
  };
  const ctx = driverContext(
    deps,
    { repoDir, commonDir },
    { config, verify: req.verify ?? config.queue.verify, planText: req.planText, sandbox, workRoot: run.workdir, tamper },
  );
  return driveMission(ctx, id, [requested]);
}

export async function resumeLocalMission(deps: LocalDeps, input: { repoDir: string; id: string; config?: Config; verify?: string | null }): Promise<Mission> {
  const store = createLocalMissionStore({ git: deps.git, repoDir: input.repoDir });
  const stored = await store.load(input.id);
  if (!stored) throw new MissionNotFoundError(input.id);
  if (isMissionTerminal(stored.mission.status)) return stored.mission;
  deps.onMission?.(input.id);
  // One driver at a time: a live run or resume of the mission holds it, and this one refuses.
  const commonDir = await gitCommonDir(deps.git, input.repoDir);
  const release = await holdMission(commonDir, input.id);
  try {
    // Read again under the lock: the holder that just let go may have moved it on.
    const held = await store.load(input.id);
    if (!held) throw new MissionNotFoundError(input.id);
    if (isMissionTerminal(held.mission.status)) return held.mission;
    return await resumeHeld(deps, { ...input, commonDir }, held.mission);
  } finally {
    await release();
  }
}

/** Drives a mission whose driver lock the caller holds, from where it stands (resume, and after a refresh). */
export async function resumeHeld(
  deps: LocalDeps,
  input: { repoDir: string; commonDir: string; config?: Config; verify?: string | null },
  m: Mission,
): Promise<Mission> {
  // What the stopped run left: its agents, still running, and their unfinished work.
  // The run's --agent, --verify, --sandbox and --workdir hold for the rest of the mission (see run-overrides.ts).
  const overrides = await loadRunOverrides(input.commonDir, m.id);
  const config = withOverrides(input.config ?? (await configAt(deps.git, input.repoDir, m.base.commit)), {
    agentCommand: overrides.agent_command,
    agentRead: overrides.agent_read,
    parallel: null,
    login: overrides.login,
  });
  const workRoot = overrides.workdir ?? defaultWorkRoot(deps.env, { override: config.workdir, cwd: deps.cwd });
  const sandbox = await pickSandbox(deps, overrides.sandbox ?? config.sandbox);
  const orphans = await stopOrphanAgents(m);
  const work = await keepLeftoverWork({ git: deps.git, repoDir: input.repoDir, mission: m, workRoot, now: deps.now, maxFileSize: config.limits.max_file_size });
  if (sandbox.kind === "none") deps.progress.error(new Error(unsandboxedWarning(sandbox)));
  const hostNetwork = networkWarning(sandbox);
  if (hostNetwork !== null) deps.progress.error(new Error(hostNetwork));
  const tamper = await watchFor(deps, input, m.id, sandbox);
  const ctx = driverContext(deps, input, {
    config,
    verify: input.verify ?? overrides.verify ?? config.queue.verify,
    planText: m.plan_text,
    sandbox,
    workRoot,
    tamper,
  });
  const r = resumption(m, deps.now().toISOString(), { stoppedProcesses: orphans.length, work });
  const first: MissionEvent[] = [...r.events];
  if (r.plan) {
    const planned = await ctx.plan(m, deps.shutdown ?? new AbortController().signal);
    if (planned !== null) first.push(planned);
  }
  return driveMission(ctx, m.id, first, { checkpoints: r.checkpoints, review: r.review });
}

/** What the terminal says of a run without the sandbox. */
function unsandboxedWarning(sandbox: Sandbox): string {
  if (!sandbox.runsAsRoot) return `agents run without a sandbox: ${sandbox.description}`;
  return `agents run as root without a sandbox: ${sandbox.description}; the verdict cannot be approve (install bubblewrap and use sandbox: auto, where agents run as an unprivileged user)`;
}

/** A question asked ahead of its answer's use: a failure surfaces where it is awaited, never as unhandled. */
function early<T>(answer: Promise<T>): Promise<T> {
  answer.catch(() => undefined);
  return answer;
}

/** The sandbox of a run (`deps.chooseSandbox` in tests, else bubblewrap when it works). */
export function pickSandbox(deps: LocalDeps, mode: SandboxMode): Promise<Sandbox> {
  return deps.chooseSandbox ? deps.chooseSandbox(mode) : chooseSandbox({ mode, env: deps.env });
}

/** The tamper record of a mission (tamper-watch.ts), taken now. */
function watchFor(deps: LocalDeps, { repoDir, commonDir }: { repoDir: string; commonDir: string }, mission: string, sandbox: Sandbox): Promise<TamperWatch> {
  return createTamperWatch({ git: deps.git, repoDir, commonDir, mission, home: deps.env.HOME ?? null, sandboxed: sandbox.kind === "bwrap", now: deps.now });
}

function driverContext(
  deps: LocalDeps,
  { repoDir, commonDir }: { repoDir: string; commonDir: string },
  run: { config: Config; verify: string | null; planText: string | null; sandbox: Sandbox; workRoot: string; tamper: TamperWatch },
): DriverContext {
  // Every git of the mission goes through the tamper watch, which notes naruto's own ref writes.
  const git = run.tamper.git;
  const { config, verify, planText } = run;
  const engine = { git, repoDir, commonDir, config, env: deps.env, now: deps.now, sandbox: run.sandbox, workRoot: run.workRoot, nodePath: deps.nodePath };
  // What the mission writes (its state in refs, report.md, result.json) is redacted: the secrets
  // are what the config passes to agents and every credential-named variable (docs/architecture.md).
  const redactor = createRedactor({ secrets: secretValues({ env: deps.env, passed: passedNames(config) }) });
  return {
    ...engine,
    tamper: run.tamper,
    store: redactingStore(createLocalMissionStore({ git, repoDir }), redactor),
    verify,
    progress: deps.progress,
    ...(deps.shutdown ? { shutdown: deps.shutdown } : {}),
    ...(deps.onCancelled ? { onCancelled: deps.onCancelled } : {}),
    ...(deps.tickMs ? { tickMs: deps.tickMs } : {}),
    plan: (m, signal) => makePlan({ ctx: { ...engine, signal }, planText, mission: m, onOutput: (chunk) => deps.progress.output(PLANNER_OUTPUT, chunk) }),
    report: async (m) => {
      await writeReports(commonDir, m, redactor);
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

/** The `planned` event for an explicit plan, or the planner agent's plan; null when the planner was stopped. */
async function makePlan(input: {
  ctx: EngineContext;
  planText: string | null;
  mission: Mission;
  onOutput: (chunk: Buffer) => void;
}): Promise<MissionEvent | null> {
  const { ctx, mission } = input;
  const { config } = ctx;
  const at = () => ctx.now().toISOString();
  let check: CheckResult;
  if (input.planText !== null) {
    check = checkPlan(input.planText, planCheckOptions(config, mission.settings.strict));
    if (!check.ok) return { type: "planning_failed", at: at(), reason: check.errors.map(formatPlanError).join("\n") };
  } else {
    const result = await runPlanner(ctx, mission, { onOutput: input.onOutput });
    if (!result.ok && "stopped" in result) return null;
    if (!result.ok) return { type: "planning_failed", at: at(), reason: result.reason, ...(result.outputTail ? { output_tail: [...result.outputTail] } : {}) };
    check = result.check;
  }
  return plannedEvent(check, at());
}

function withOverrides(config: Config, req: { agentCommand: string | null; agentRead: readonly string[]; parallel: number | null; login: boolean }): Config {
  const agents = { ...config.agents };
  const base = agents["default"];
  if (req.agentCommand !== null && base)
    agents["default"] = { ...base, command: req.agentCommand, preset: null, executables: [], read: [...base.read, ...req.agentRead], login: false };
  // `--read` without `--agent`: what the default profile's own command needs (a CLI installed in a folder of its own).
  else if (base && req.agentRead.length > 0) agents["default"] = { ...base, read: [...base.read, ...req.agentRead] };
  // `--login`: every profile whose CLI has a login here uses it.
  if (req.login)
    for (const [name, profile] of Object.entries(agents))
      if (profile.preset !== null && PRESET_AUTH[profile.preset].login !== null) agents[name] = { ...profile, login: true };
  const limits = req.parallel !== null ? { ...config.limits, max_parallel: req.parallel } : config.limits;
  return { ...config, agents, limits };
}
