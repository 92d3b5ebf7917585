/**
 * The scratch repository a CLI's mission runs in, set up the way a user would: a git repository
 * with a commit on `main` whose `.github/naruto.yml` chooses the preset (passing the driver's
 * variables through `agent.env`, showing the install and the driver's folders through
 * `agent.read`), and a plan file beside it. It lies under the cache, not under /tmp (Codex
 * refuses its helpers under /tmp, AGENTS.md) and not in naruto's checkout.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { stringify } from "yaml";
import { planOf, type CheckCase } from "./cases.ts";

const run = promisify(execFile);

export interface Scratch {
  /** The run's folder: the repository, the CLI's state and the plan. Kept when the check fails. */
  readonly root: string;
  readonly repo: string;
  /** For the driver's config files (a CLI home). */
  readonly stateDir: string;
  /** naruto's work root (config `workdir:`), so that the run leaves nothing outside `root`. */
  readonly workRoot: string;
  readonly planFile: string;
}

/** Makes the folders; the repository comes once the driver's variables are known (`initRepo`). */
export async function makeScratch(input: { readonly cacheRoot: string; readonly name: string }): Promise<Scratch> {
  const root = join(input.cacheRoot, "agents-check", `${input.name}-${randomBytes(4).toString("hex")}`);
  const scratch = { root, repo: join(root, "repo"), stateDir: join(root, "state"), workRoot: join(root, "work"), planFile: join(root, "plan.json") };
  await mkdir(scratch.repo, { recursive: true });
  await mkdir(scratch.stateDir, { recursive: true });
  return scratch;
}

export interface RepoSetup {
  readonly preset: string;
  /** Names of the variables the agent gets besides the preset's. */
  readonly env: readonly string[];
  readonly read: readonly string[];
  readonly cases: readonly CheckCase[];
  /** The profile's `login: true`: the agent gets a copy of the CLI's login. */
  readonly login?: boolean;
}

export async function initRepo(scratch: Scratch, setup: RepoSetup): Promise<void> {
  const config = {
    version: 1,
    agents: { default: { preset: setup.preset, env: [...setup.env], read: [...setup.read], ...(setup.login === true ? { login: true } : {}) } },
    // One attempt per item: a retry would run the scenario again and double the usage to check.
    limits: { max_attempts: 1, item_timeout: "5m" },
    workdir: scratch.workRoot,
  };
  await mkdir(join(scratch.repo, ".github"), { recursive: true });
  await mkdir(join(scratch.repo, "notes"), { recursive: true });
  await writeFile(join(scratch.repo, ".github", "naruto.yml"), stringify(config));
  await writeFile(join(scratch.repo, "README.md"), "# scratch\n\nThe repository of one `npm run agents-check` mission.\n");
  await writeFile(join(scratch.repo, "notes", "existing.txt"), "already here\n");
  await writeFile(scratch.planFile, planOf(setup.cases));
  const git = (...args: string[]) =>
    run("git", ["-c", "user.name=agents-check", "-c", "user.email=agents-check@example.invalid", ...args], { cwd: scratch.repo });
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git("commit", "-q", "-m", "scratch repository");
}

/** What the user's repository looks like to a user: refs (but naruto's own), HEAD, status. */
export async function repoState(repo: string): Promise<string> {
  const git = async (...args: string[]) => (await run("git", args, { cwd: repo })).stdout;
  const refs = (await git("for-each-ref", "--format=%(refname) %(objectname)"))
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("refs/naruto/") && !line.startsWith("refs/heads/naruto/"));
  return [
    `HEAD ${(await git("symbolic-ref", "HEAD")).trim()} ${(await git("rev-parse", "HEAD")).trim()}`,
    ...refs,
    `status ${JSON.stringify(await git("status", "--porcelain", "--untracked-files=all"))}`,
  ].join("\n");
}
