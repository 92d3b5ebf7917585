import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gitText } from "../../src/git/run-git.ts";
import { createWorkDir, type WorkDir } from "../../src/sandbox/work-dir.ts";
import { missionWorkFolder, workRepo } from "../../src/sandbox/work-root.ts";
import { removeWorkDir } from "../../src/sandbox/remove-work-dir.ts";
import { createTestRepo, type TestRepo } from "./git-repo.ts";

/** What a fake agent does in its work directory: plain file-system edits and git commands. */
export interface AgentHands {
  readonly dir: string;
  write(files: Record<string, string | Buffer>): Promise<void>;
  remove(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  symlink(target: string, path: string): Promise<void>;
  /** Runs git in the work directory, as an agent would (with the test identity). */
  git(...args: string[]): Promise<string>;
}

export function agentHands(repo: TestRepo, dir: string): AgentHands {
  const at = (p: string) => join(dir, p);
  return {
    dir,
    write: async (files) => {
      for (const [p, content] of Object.entries(files)) {
        await mkdir(dirname(at(p)), { recursive: true });
        await writeFile(at(p), content);
      }
    },
    remove: (p) => rm(at(p), { recursive: true, force: true }),
    rename: async (from, to) => {
      await mkdir(dirname(at(to)), { recursive: true });
      await rename(at(from), at(to));
    },
    chmod: (p, mode) => chmod(at(p), mode),
    symlink: async (target, p) => {
      await mkdir(dirname(at(p)), { recursive: true });
      await symlink(target, at(p));
    },
    git: (...args) => gitText(repo.git, { args, cwd: dir }),
  };
}

export interface WorkerFixture {
  readonly repo: TestRepo;
  readonly workDir: WorkDir;
  /** The work root the directory was made under (outside the repository). */
  readonly workRoot: string;
  readonly agent: AgentHands;
  remove(): Promise<void>;
}

export interface WorkerFixtureOptions {
  readonly mission?: string;
  readonly item?: string;
  /** Runs on the repository before the work directory is made (more commits, branches, …). */
  readonly prepare?: (repo: TestRepo) => Promise<void>;
  /** Where the work directory starts (default HEAD). */
  readonly at?: string;
}

/** A throwaway repository holding `files` and a fresh work directory (mission `m-test`, item `item`). */
export async function createWorkerFixture(files: Record<string, string | Buffer>, options: WorkerFixtureOptions = {}): Promise<WorkerFixture> {
  const repo = await createTestRepo(files);
  await options.prepare?.(repo);
  const workRoot = await mkdtemp(join(tmpdir(), "naruto-work-"));
  const mission = options.mission ?? "m-test";
  const item = options.item ?? "item";
  const commit = await repo.run("rev-parse", "--verify", `${options.at ?? "HEAD"}^{commit}`);
  const repoInfo = await workRepo(repo.git, repo.dir);
  const workDir = await createWorkDir({
    git: repo.git,
    repo: repoInfo,
    folder: missionWorkFolder(workRoot, repoInfo, mission),
    label: `${item}.1`,
    commit,
    record: { mission, purpose: item, attempt: 1 },
  });
  return {
    repo,
    workDir,
    workRoot,
    agent: agentHands(repo, workDir.path),
    async remove() {
      await removeWorkDir(workDir);
      await rm(workRoot, { recursive: true, force: true }).catch(async () => {
        await chmod(dirname(workDir.root), 0o700).catch(() => undefined);
        await rm(workRoot, { recursive: true, force: true });
      });
      await repo.remove();
    },
  };
}

/**
 * Every byte of a user's checkout that naruto must not touch: the work tree's files (symlinks by
 * target), and git's index and HEAD. Keyed by path; values are hex so that diffs print readably.
 */
export async function snapshotCheckout(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (path === ".git") continue;
      const info = await lstat(join(dir, path));
      if (info.isSymbolicLink()) out[path] = `link:${await readlink(join(dir, path))}`;
      else if (info.isDirectory()) await walk(path);
      else out[path] = `mode:${info.mode.toString(8)}:${(await readFile(join(dir, path))).toString("hex")}`;
    }
  };
  await walk("");
  for (const meta of [".git/index", ".git/HEAD"]) out[meta] = (await readFile(join(dir, meta))).toString("hex");
  return out;
}
