/**
 * Starting a mission on this machine: resolves the base, reads the config from the base commit
 * (reviewed code, not the dirty work tree), creates the queue branch, and hands the mission to
 * the driver. The user's branch, index and work tree are never touched. Resuming one:
 * resume-mission.ts.
 */
import type { Config, SandboxMode } from "../config/index.ts";
import { createQueueBranch } from "../queue/index.ts";
import type { Git } from "../git/index.ts";
import type { Mission } from "../mission/index.ts";
import type { MissionEvent } from "../mission/index.ts";
import { driveMission } from "./driver.ts";
import { gitCommonDir } from "../engine/index.ts";
import { configAt } from "./config-at.ts";
import { driverContext, pickSandbox, unsandboxedWarning, watchFor } from "./mission-context.ts";
import { holdMission } from "./mission-lock.ts";
import type { Progress } from "./progress.ts";
import { saveRunOverrides, withOverrides } from "./run-overrides.ts";
import { networkWarning } from "../sandbox/index.ts";
import type { Sandbox } from "../sandbox/index.ts";
import { defaultWorkRoot, sandboxUserFor, workRepo } from "../sandbox/index.ts";
import { resolveAgentCommand } from "./agent-command.ts";
import { checkAgentsAuthenticated, type Probe } from "./auth-check.ts";
import { unpassedVariables } from "./unpassed-variables.ts";
import {
  checkAgentsInstalled,
  checkedPlan,
  checkEndpointsCarried,
  checkGivenReadPaths,
  checkProgramsShown,
  checkReadPaths,
  profilesToRun,
  resolveBase,
  uncommittedNote,
} from "./preflight.ts";

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
  await checkEndpointsCarried(config, profiles, deps.env, chosen);
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

/** A question asked ahead of its answer's use: a failure surfaces where it is awaited, never as unhandled. */
function early<T>(answer: Promise<T>): Promise<T> {
  answer.catch(() => undefined);
  return answer;
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
