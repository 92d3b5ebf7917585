/** Small steps every mode takes: the mission it names, its config, the artifact folder. */
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { formatConfigErrors, loadConfig, type Config } from "../../config/index.ts";
import { GITHUB_STATE_REF_PREFIX } from "../../store/index.ts";
import { readMissionVersion } from "../../store/index.ts";
import { gitText } from "../../git/index.ts";
import { fetchRefs, hasCommit } from "../remote.ts";
import type { Mission } from "../../mission/index.ts";
import { MissionNotFoundError } from "../../mission/index.ts";
import type { EngineContext } from "../../engine/index.ts";
import { gitCommonDir } from "../../engine/index.ts";
import type { AgentStepDeps, ModeDeps } from "../deps.ts";
import { writePrepared, type PreparedJob } from "../prepared.ts";
import { networkWarning } from "../../sandbox/index.ts";

/** The mission input is missing or not a mission id. */
export class ModeInputError extends Error {
  override readonly name = "ModeInputError";
}

const MISSION_ID = /^m-[a-z0-9]{4,32}$/;

export function missionInput(value: string): string {
  if (!MISSION_ID.test(value)) throw new ModeInputError(`input mission ${JSON.stringify(value)}: expected a mission id like m-1a2b3c`);
  return value;
}

/**
 * The mission as stored, read over git with the job's token: its state branch is fetched like any
 * branch, which costs no API request (jobs spend the repository's `GITHUB_TOKEN` budget, 1,000
 * requests an hour on github.com, and every leg of a matrix reads the mission). Through the API
 * when git cannot (the mission is missing, git fails): that answer, or its error, stands.
 */
export async function readMission(deps: ModeDeps, id: string): Promise<{ mission: Mission; version: string }> {
  const { git, workspace: cwd, remote } = deps;
  try {
    const local = `refs/naruto/read/state/${id}`;
    await fetchRefs(git, cwd, remote, [`+${GITHUB_STATE_REF_PREFIX}${id}:${local}`]);
    const version = await gitText(git, { args: ["rev-parse", "--verify", "--quiet", `${local}^{commit}`], cwd });
    return { mission: await readMissionVersion(git, cwd, version), version };
  } catch (error) {
    deps.log.info(`mission ${id}: read through the API (${(error instanceof Error ? error.message : String(error)).split("\n")[0] ?? ""})`);
    return loadMission(deps, id);
  }
}

/**
 * A file as committed at `commit`, read from the checkout (fetching the commit when the checkout
 * lacks it): null when it is not there; undefined when git cannot tell, or the path is not a
 * regular file (the API decides those).
 */
async function committedFile(deps: ModeDeps, commit: string, path: string): Promise<string | null | undefined> {
  const { git, workspace: cwd, remote } = deps;
  try {
    if (!(await hasCommit(git, cwd, commit))) await fetchRefs(git, cwd, remote, [`+${commit}:refs/naruto/read/config`]);
    const entry = await gitText(git, { args: ["ls-tree", "--full-tree", commit, "--", path], cwd });
    if (entry === "") return null;
    const mode = entry.split(" ")[0];
    if (mode !== "100644" && mode !== "100755") return undefined;
    const { stdout } = await git({ args: ["cat-file", "blob", `${commit}:${path}`], cwd });
    return stdout.toString("utf8");
  } catch {
    return undefined;
  }
}

export async function loadMission(deps: ModeDeps, id: string): Promise<{ mission: Mission; version: string }> {
  const stored = await deps.store.load(id);
  if (stored === null) throw new MissionNotFoundError(id);
  return stored;
}

/** The config invalid at the mission's base: its errors, one per line. */
export class ConfigInvalidError extends Error {
  override readonly name = "ConfigInvalidError";
}

/**
 * The commit whose config the mission follows: the default branch's head recorded when the
 * command was accepted (docs/architecture.md: never a pull request's head, never what an agent wrote);
 * for missions stored before that was recorded, the base.
 */
export function configCommitOf(mission: Mission): string {
  return mission.config_commit ?? mission.base.commit;
}

/** The config as committed at {@link configCommitOf} (reviewed code). */
export async function missionConfig(deps: ModeDeps, mission: Mission): Promise<Config> {
  const loaded = loadConfig(await missionConfigText(deps, mission));
  if (!loaded.ok)
    throw new ConfigInvalidError(`the config at ${configCommitOf(mission).slice(0, 12)} is invalid:\n${formatConfigErrors(loaded.errors, deps.configPath)}`);
  return loaded.config;
}

/**
 * The config file's text at {@link configCommitOf}, from the checkout's git (else the API; null:
 * there is none), for the agent step, which has no token and parses it with {@link configFromText}.
 */
export async function missionConfigText(deps: ModeDeps, mission: Mission): Promise<string | null> {
  const fromGit = await committedFile(deps, configCommitOf(mission), deps.configPath);
  return fromGit !== undefined ? fromGit : deps.github.readFile({ path: deps.configPath, ref: configCommitOf(mission) });
}

/** {@link missionConfig} from the text the action's step read; throws {@link ConfigInvalidError}. */
export function configFromText(input: { text: string | null; path: string; mission: Mission }): Config {
  const loaded = loadConfig(input.text);
  if (!loaded.ok)
    throw new ConfigInvalidError(`the config at ${configCommitOf(input.mission).slice(0, 12)} is invalid:\n${formatConfigErrors(loaded.errors, input.path)}`);
  return loaded.config;
}

/** A fresh, empty folder for this job's artifact; its path becomes the `artifact` output. */
export async function artifactFolder(deps: Pick<ModeDeps, "tempDir" | "log">): Promise<string> {
  const dir = join(deps.tempDir, "naruto-artifact");
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  deps.log.setOutput("artifact", dir);
  return dir;
}

/**
 * Ends an agent job's action step: the prepared file for the agent step, and its path as the
 * `prepared` output. The action's process exits after this, with the token; the agent step
 * starts without it.
 */
export async function handOver(deps: Pick<ModeDeps, "tempDir" | "log">, job: PreparedJob): Promise<string> {
  const path = await writePrepared(deps.tempDir, job);
  deps.log.setOutput("prepared", path);
  return path;
}

/**
 * What the engine needs in a job: the job's checkout as the repository, the config's sandbox,
 * and work directories under the job's temp folder (outside the checkout).
 */
export async function engineContext(deps: AgentStepDeps, config: Config): Promise<EngineContext> {
  const sandbox = await deps.chooseSandbox(config.sandbox);
  if (sandbox.kind === "none") deps.log.warning(`naruto: agents and verify commands run without a sandbox: ${sandbox.description}`);
  else
    deps.log.info(
      `naruto: agents and verify commands run in the sandbox: ${sandbox.description}${sandbox.network.kind === "isolated" ? `; network: ${sandbox.network.via}` : ""}`,
    );
  const hostNetwork = networkWarning(sandbox);
  if (hostNetwork !== null) deps.log.warning(`naruto: ${hostNetwork}`);
  return {
    git: deps.git,
    repoDir: deps.workspace,
    commonDir: await gitCommonDir(deps.git, deps.workspace),
    config,
    env: deps.env,
    now: deps.now,
    sandbox,
    workRoot: join(deps.tempDir, "naruto-work"),
    nodePath: deps.nodePath,
  };
}
