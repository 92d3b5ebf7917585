/**
 * What `naruto run` checks before it makes anything (no mission, no branch): that the base is a
 * commit, that an explicit plan is valid, and that every agent the mission will start is
 * installed. Each failure is a {@link RunRefusedError} that names the problem and the next step.
 * A missing program is not a transient failure: an attempt of it would only fail, and be retried.
 */
import { PRESETS } from "../config/index.ts";
import type { AgentProfile, Config } from "../config/index.ts";
import { GitError, gitText, type Git } from "../git/index.ts";
import { planCheckOptions, shownPrograms } from "../engine/index.ts";
import { checkPlan, formatPlanError, type CheckResult } from "../plan/index.ts";
import { stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { agentEndpoints, buildCommandEnv, commandProgram } from "../agent/index.ts";
import { executableMounts, ProgramNotShownError, SANDBOX_UIDS, whichProgram, type Sandbox, type SandboxUser } from "../sandbox/index.ts";

/** A run refused before anything was made: input the user can fix. The CLI exits 2. */
export class RunRefusedError extends Error {
  override readonly name = "RunRefusedError";
}

/** The base commit of `ref`, or why there is none: an empty repository, an unknown name. */
export async function resolveBase(git: Git, repoDir: string, ref: string): Promise<{ commit: string; refName: string }> {
  const commitOf = (r: string) => gitText(git, { args: ["rev-parse", "--verify", "--quiet", "--end-of-options", `${r}^{commit}`], cwd: repoDir });
  // Asked beside the commit; its answer only counts when there is one.
  const branch = ref === "HEAD" ? gitText(git, { args: ["rev-parse", "--abbrev-ref", "HEAD"], cwd: repoDir }) : Promise.resolve(ref);
  branch.catch(() => undefined);
  let commit: string;
  try {
    commit = await commitOf(ref);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    const anyCommit = await gitText(git, { args: ["rev-list", "-n", "1", "--all"], cwd: repoDir }).catch(() => "");
    if (anyCommit === "") throw new RunRefusedError("this repository has no commits yet: make a first commit, then run naruto (missions start from a commit)");
    throw new RunRefusedError(`${JSON.stringify(ref)} is not a commit of this repository: --base takes a branch, a tag or a commit (see \`git branch\`)`);
  }
  return { commit, refName: await branch };
}

/** The checked plan; refused, with every error, when it is invalid. */
export function checkedPlan(planText: string, config: Config, strict: boolean, file: string | null): CheckResult {
  const check = checkPlan(planText, planCheckOptions(config, strict));
  if (!check.ok) {
    const errors = check.errors.map((e) => `  ${formatPlanError(e)}`).join("\n");
    const name = file === null ? "" : file === "-" ? " on standard input" : ` ${file}`;
    throw new RunRefusedError(`the plan${name} is invalid, so nothing was started:\n${errors}\nCheck a plan with \`naruto plan ${file ?? "FILE"}\`.`);
  }
  return check;
}

/**
 * The agent profiles a mission will start: the planner's (no plan given), each item's, and the
 * review agent's.
 */
export function profilesToRun(config: Config, plan: CheckResult | null): string[] {
  const names = new Set<string>();
  if (plan === null) names.add(config.planner.agent);
  for (const item of plan?.plan?.items ?? []) names.add(item.agent);
  if (config.arbiter.agent !== null) names.add(config.arbiter.agent);
  return [...names];
}

/** Refuses the run when a program an agent profile runs is not found on PATH. */
export async function checkAgentsInstalled(config: Config, names: readonly string[], path: string | undefined): Promise<void> {
  const missing: string[] = [];
  for (const name of names) {
    const profile = config.agents[name];
    if (profile === undefined) continue; // the plan check names unknown profiles
    for (const program of programsOf(profile)) {
      const found = await whichProgram(program, path);
      if (found === null || (isAbsolute(program) && (await stat(found).catch(() => null)) === null)) missing.push(missingLine(profile, program));
    }
  }
  if (missing.length > 0) throw new RunRefusedError(`${missing.join("\n")}\nNothing was started.`);
}

/**
 * Refuses the run when a program a profile's sandbox must show could only be shown with a
 * folder naruto never shows agents (HOME, a folder holding it, `~/.local`: see
 * src/sandbox/executables.ts); the refusal names the `read:` the user can give instead.
 */
export async function checkProgramsShown(
  config: Config,
  names: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  hidden: readonly string[],
): Promise<void> {
  const refused: string[] = [];
  for (const name of names) {
    const profile = config.agents[name];
    if (profile === undefined) continue;
    try {
      await executableMounts(shownPrograms(profile), { path: env.PATH, home: env.HOME ?? null, hidden });
    } catch (error) {
      if (!(error instanceof ProgramNotShownError)) throw error;
      refused.push(`${label(profile.name)}: ${error.message}`);
    }
  }
  if (refused.length > 0) throw new RunRefusedError(`${refused.join("\n")}\nNothing was started.`);
}

/**
 * Refuses the run when an endpoint a profile's agent is given (a `*_BASE_URL`, a proxy, Codex's
 * `base_url`: src/agent/endpoints.ts) cannot be carried into the network of its own that
 * `network: true` gives it here: every attempt would fail before its agent starts. The sandbox
 * decides, with the words it would refuse each attempt with (src/sandbox/reach.ts). `sandbox`:
 * the one the run will use (null: none could be had, refused elsewhere).
 */
export async function checkEndpointsCarried(
  config: Config,
  names: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  sandbox: Pick<Sandbox, "refusedReach"> | null,
): Promise<void> {
  if (sandbox === null) return;
  const refused: string[] = [];
  for (const name of names) {
    const profile = config.agents[name];
    if (profile === undefined || profile.network !== true) continue;
    // The environment the agent gets, less naruto's own variables (which name no endpoint).
    const why = await sandbox.refusedReach(await agentEndpoints(buildCommandEnv({ from: env, allow: profile.env }).env));
    if (why !== null) refused.push(`${label(name)}: ${why}`);
  }
  if (refused.length > 0) throw new RunRefusedError(`${refused.join("\n")}\nNothing was started.`);
}

/** The programs a profile runs: a preset's CLI, or the program a plain command starts, by name or path. */
export function programsOf(profile: Pick<AgentProfile, "command" | "executables" | "preset">): string[] {
  if (profile.preset !== null) return [...profile.executables];
  // A relative path is a file of the commit the mission starts from, in the agent's work directory.
  const program = commandProgram(profile.command)?.text;
  return program === undefined || (program.includes("/") && !isAbsolute(program)) ? [] : [program];
}

/**
 * Refuses the run when a profile it starts reads a path that is not here (`read:` in the config,
 * `--read` on the command line): the sandbox would quietly show nothing in its place. When the
 * agents run as a user of their own (`user`: naruto is root, src/sandbox/sandbox-user.ts), a path
 * that user cannot read (a folder made 0700, a script only its owner may run) is refused too:
 * the agent would find it and fail on it.
 */
export async function checkReadPaths(config: Config, names: readonly string[], home: string | undefined, user: SandboxUser = null): Promise<void> {
  const missing: string[] = [];
  for (const name of names) {
    const profile = config.agents[name];
    for (const path of profile?.read ?? []) {
      const here = path === "~" || path.startsWith("~/") ? join(home ?? "/", path.slice(1)) : path;
      const info = await stat(here).catch(() => null);
      const named = `${path}${here === path ? "" : ` (${here})`}`;
      if (info === null) missing.push(`${label(name)} reads ${named} (--read, or read: in .github/naruto.yml), which is not here: fix or remove the path.`);
      else if (user !== null && !othersMay(info)) {
        missing.push(
          `${label(name)} reads ${named}, which the agents cannot read: naruto runs as root, and agents run as users of their own (uids ${SANDBOX_UIDS.first}–${SANDBOX_UIDS.first + SANDBOX_UIDS.count - 1}), never as root. ` +
            `Let others read it (\`chmod o+rX ${here}\`), or run naruto as an ordinary user.`,
        );
      }
    }
  }
  if (missing.length > 0) throw new RunRefusedError(`${missing.join("\n")}\nNothing was started.`);
}

/** Whether a user who is neither owner nor group may read it (and enter a folder, run a program). */
function othersMay(info: { readonly mode: number; isDirectory(): boolean }): boolean {
  if (info.isDirectory()) return (info.mode & 0o005) === 0o005;
  const ownerRuns = (info.mode & 0o100) !== 0;
  return (info.mode & 0o004) !== 0 && (!ownerRuns || (info.mode & 0o001) !== 0);
}

/** Refuses `--read` paths that are not here, before anything is made. */
export async function checkGivenReadPaths(paths: readonly string[]): Promise<void> {
  const missing: string[] = [];
  for (const path of paths) if ((await stat(path).catch(() => null)) === null) missing.push(path);
  if (missing.length > 0)
    throw new RunRefusedError(
      `--read ${missing.join(", ")}: no such file or folder here; --read shows the agent a file or folder that exists. Nothing was started.`,
    );
}

function label(name: string): string {
  return name === "default" ? "the default agent" : `agent profile ${JSON.stringify(name)}`;
}

function missingLine(profile: AgentProfile, program: string): string {
  const who = label(profile.name);
  if (profile.preset !== null && program === profile.executables[0]) {
    return `${who} runs \`${program}\`, which is not installed (not found on PATH). Install it with \`${PRESETS[profile.preset].install}\`, or run another agent: \`naruto run --plan FILE --agent COMMAND\` (see \`naruto run --help\`).`;
  }
  return `${who} runs \`${program}\`, which is ${isAbsolute(program) ? "not here" : "not found on PATH"}. Install it, or fix the command (\`--agent\`, or \`agents:\` in .github/naruto.yml).`;
}

/**
 * What a mission from `commit` leaves out of the user's work: changes not committed, when the
 * work tree is at that commit. null when there are none (or the base is another commit).
 * `knownHead`: HEAD's commit when the caller has just read it (the base was `HEAD`).
 */
export async function uncommittedNote(git: Git, repoDir: string, commit: string, knownHead?: string): Promise<string | null> {
  const head = knownHead ?? (await gitText(git, { args: ["rev-parse", "--verify", "--quiet", "HEAD"], cwd: repoDir }).catch(() => ""));
  if (head !== commit) return null;
  const status = await gitText(git, { args: ["status", "--porcelain=v1", "-z", "--no-renames"], cwd: repoDir }).catch(() => "");
  const files = status.split("\0").filter((entry) => entry.length > 3 && entry[2] === " ").length;
  if (files === 0) return null;
  return `${files} uncommitted file${files === 1 ? "" : "s"} in your work tree ${files === 1 ? "is" : "are"} not part of the mission: it starts from commit ${commit.slice(0, 12)}; commit first to include them`;
}
