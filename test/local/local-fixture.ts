/**
 * Whole local missions on real throwaway repositories with the fake agents of
 * test/support/agents: a config whose profiles are the fake agents, plans built from a few
 * lines, and readers for what a mission leaves in git (the queue's commits and files).
 */
import { readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { formatConfigErrors, loadConfig, type Config } from "../../src/config/index.ts";
import { runLocalMission, type LocalDeps, type RunRequest } from "../../src/local/local-mission.ts";
import { resumeLocalMission } from "../../src/local/resume-mission.ts";
import { silentProgress } from "../../src/local/progress.ts";
import type { Mission } from "../../src/mission/document.ts";
import { readMissionVersion } from "../../src/store/git-store.ts";
import { fakeAgentCommand, fakeAgentPath, type FakeAgent } from "../support/agents/index.ts";
import type { WorkDirRecord } from "../../src/sandbox/work-dir.ts";
import { missionWorkFolder, workRepo } from "../../src/sandbox/work-root.ts";
import { listMissionWorkDirs } from "../../src/sandbox/remove-work-dir.ts";
import { TEST_CACHE } from "./cli-io.ts";
import type { TestRepo } from "../support/git-repo.ts";

const AGENTS: readonly FakeAgent[] = ["edit", "slow", "crash", "hang", "out-of-scope", "noop", "flaky"];
export const FAKE_AGENTS_DIR = dirname(fakeAgentPath("edit"));

export interface FakeConfigOptions {
  /** The queue's verify command (`sh -c`, run in a scratch work tree at the candidate). */
  readonly verify?: string;
  readonly batch?: number;
  readonly maxParallel?: number;
  readonly maxAttempts?: number;
  /** A duration such as `3s`; also every profile's timeout. */
  readonly itemTimeout?: string;
  /** How long the `slow` agent sleeps (default 300 ms). */
  readonly slowMs?: number;
  /** Where the `hang` agent writes its grandchild's pid. */
  readonly hangPidFile?: string;
  /** More profiles: name → command. */
  readonly agents?: Readonly<Record<string, string>>;
  /** More paths every profile sees read-only in the sandbox. */
  readonly read?: readonly string[];
  /** `sandbox:` of the config (default auto: bubblewrap where it works). */
  readonly sandbox?: "auto" | "required" | "none";
  /** `allow:` of the config: what the gate lets through beyond plain files. */
  readonly allow?: readonly ("submodules" | "gitattributes")[];
  /** `allow_protected:` of the config. */
  readonly allowProtected?: boolean;
  /** More keys of `queue:` (verify_report, red_base, confirm_runs, max_flips). */
  readonly queue?: Readonly<Record<string, unknown>>;
}

/**
 * `.github/naruto.yml` as data: `default` is the `edit` agent and every fake agent is a profile of
 * its own name. JSON is YAML, so `JSON.stringify` of this is a config file.
 */
export function fakeConfigFile(options: FakeConfigOptions = {}): Record<string, unknown> {
  const extraEnv: Partial<Record<FakeAgent, string>> = {
    slow: `NARUTO_FAKE_SLEEP_MS=${options.slowMs ?? 300} `,
    ...(options.hangPidFile ? { hang: `NARUTO_FAKE_PID_FILE=${options.hangPidFile} ` } : {}),
  };
  // The sandbox shows agents the system and their work directory: the fake agents' folder too.
  const read = [FAKE_AGENTS_DIR, ...(options.read ?? [])];
  const agents: Record<string, { command: string; read: string[] }> = { default: { command: fakeAgentCommand("edit"), read } };
  for (const name of AGENTS) agents[name] = { command: `${extraEnv[name] ?? ""}${fakeAgentCommand(name)}`, read };
  for (const [name, command] of Object.entries(options.agents ?? {})) agents[name] = { command, read };
  return {
    version: 1,
    agents,
    queue: { batch: options.batch ?? 8, ...(options.verify ? { verify: options.verify } : {}), ...options.queue },
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.allow ? { allow: options.allow } : {}),
    ...(options.allowProtected ? { allow_protected: true } : {}),
    limits: {
      max_parallel: options.maxParallel ?? 4,
      max_attempts: options.maxAttempts ?? 2,
      item_timeout: options.itemTimeout ?? "2m",
      mission_timeout: "10m",
    },
  };
}

export function fakeConfig(options: FakeConfigOptions = {}): Config {
  const loaded = loadConfig(JSON.stringify(fakeConfigFile(options)));
  if (!loaded.ok) throw new Error(`the test config is invalid:\n${formatConfigErrors(loaded.errors)}`);
  return loaded.config;
}

export interface ItemSpec {
  readonly id: string;
  /** Default `src/<id>/`: the `edit` agent then writes `src/<id>/<id>.txt`. */
  readonly writes?: readonly string[];
  readonly after?: readonly string[];
  /** A profile: a fake agent's name, `default` (the `edit` agent), or one of `agents`. */
  readonly agent?: string;
  /** Exact edits (path → content; null deletes the file) instead of the agent's default file. */
  readonly edits?: Readonly<Record<string, string | null>>;
  /** The item's own verify command, run in its work tree after the agent. */
  readonly verify?: string;
  /** A read-only item: no writes, done when its agent changed nothing. */
  readonly readonly?: boolean;
}

/** A plan file (JSON) of these items. */
export function planText(items: readonly ItemSpec[], title = "A test mission"): string {
  return JSON.stringify({
    version: 1,
    title,
    items: items.map((i) => ({
      id: i.id,
      title: `Work on ${i.id}`,
      // The fake agents read a `fake-edits:` line of their prompt.
      prompt: i.edits ? `fake-edits: ${JSON.stringify(i.edits)}` : `Work on ${i.id}`,
      writes: i.readonly ? [] : (i.writes ?? [`src/${i.id}/`]),
      ...(i.readonly ? { readonly: true } : {}),
      after: i.after ?? [],
      agent: i.agent ?? "default",
      ...(i.verify === undefined ? {} : { verify: i.verify }),
    })),
  });
}

let counter = 0;

/** The outside world of a test run: no network, a small tick, nothing printed. */
export function localDeps(repo: TestRepo, extra: Partial<LocalDeps> = {}): LocalDeps {
  return {
    git: repo.git,
    // Work directories under the temp folder, not the machine's ~/.cache.
    env: { PATH: process.env.PATH, HOME: tmpdir(), XDG_CACHE_HOME: TEST_CACHE },
    nodePath: process.execPath,
    cwd: repo.dir,
    now: () => new Date(),
    randomId: () => `t${process.pid.toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`,
    progress: silentProgress,
    tickMs: 500,
    ...extra,
  };
}

/** What `naruto run` on `repo` is asked: at HEAD, the planner to plan, nothing else on its command line but `overrides`. */
export function runRequest(repo: TestRepo, overrides: Partial<RunRequest> = {}): RunRequest {
  return { repoDir: repo.dir, planText: null, task: null, baseRef: "HEAD", agentCommand: null, parallel: null, verify: null, strict: false, ...overrides };
}

/** Runs a whole mission of `items` on `repo` at HEAD; `deps` replaces parts of the outside world (a counting git). */
export function runMission(
  repo: TestRepo,
  items: readonly ItemSpec[],
  options: FakeConfigOptions & { strict?: boolean } = {},
  deps: Partial<LocalDeps> = {},
): Promise<Mission> {
  return runLocalMission(localDeps(repo, deps), runRequest(repo, { planText: planText(items), strict: options.strict ?? false, config: fakeConfig(options) }));
}

export function resumeMission(repo: TestRepo, id: string, options: FakeConfigOptions = {}): Promise<Mission> {
  return resumeLocalMission(localDeps(repo), { repoDir: repo.dir, id, config: fakeConfig(options) });
}

export interface QueueCommit {
  readonly commit: string;
  readonly item: string;
  readonly attempt: number;
  readonly files: readonly string[];
}

/** The queue's commits since the mission's base, oldest first, with their trailers and files. */
export async function queueCommits(repo: TestRepo, m: Mission): Promise<QueueCommit[]> {
  const out = await repo.run("log", "--reverse", "--format=%H", `${m.base.commit}..refs/heads/${m.queue.branch}`);
  const commits = out === "" ? [] : out.split("\n");
  return Promise.all(
    commits.map(async (commit) => {
      const trailer = async (key: string) => (await repo.run("log", "-1", `--format=%(trailers:key=${key},valueonly)`, commit)).trim();
      const files = await repo.run("diff-tree", "--no-commit-id", "--name-only", "-r", commit);
      return { commit, item: await trailer("Naruto-Item"), attempt: Number(await trailer("Naruto-Attempt")), files: files === "" ? [] : files.split("\n") };
    }),
  );
}

/** Every file on the queue head, path → content. */
export async function queueFiles(repo: TestRepo, m: Mission): Promise<Record<string, string>> {
  const names = (await repo.run("ls-tree", "-r", "--name-only", `refs/heads/${m.queue.branch}`)).split("\n").filter((n) => n !== "");
  const out: Record<string, string> = {};
  for (const name of names) {
    const { stdout } = await repo.git({ args: ["cat-file", "blob", `refs/heads/${m.queue.branch}:${name}`], cwd: repo.dir });
    out[name] = stdout.toString("utf8");
  }
  return out;
}

/** Every stored version of a mission, oldest first: one per event applied. */
export async function missionHistory(repo: TestRepo, id: string): Promise<Mission[]> {
  const versions = (await repo.run("rev-list", "--reverse", `refs/naruto/missions/${id}`)).split("\n");
  return Promise.all(versions.map((v) => readMissionVersion(repo.git, repo.dir, v)));
}

export function itemOf(m: Mission, id: string) {
  const item = m.items.find((i) => i.id === id);
  if (!item) throw new Error(`mission ${m.id} has no item ${id}`);
  return item;
}

/**
 * Pids of the processes started for a mission's attempts: agents get `NARUTO_MISSION` in their
 * environment, and whatever they start inherits it. Linux only (reads /proc).
 */
export async function missionProcesses(mission: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const environ = await readFile(`/proc/${name}/environ`, "latin1").catch(() => "");
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    if (state === "Z" || state === "X" || state === "") continue;
    if (environ.split("\0").includes(`NARUTO_MISSION=${mission}`)) pids.push(Number(name));
  }
  return pids;
}

/** The work directories of a mission that exist now (a live run's, or what a killed one left). */
export async function missionWorkDirs(repo: TestRepo, mission: string): Promise<WorkDirRecord[]> {
  const folder = missionWorkFolder(join(TEST_CACHE, "naruto"), await workRepo(repo.git, repo.dir), mission);
  return (await listMissionWorkDirs(folder)).flatMap((d) => (d.record ? [d.record] : []));
}
