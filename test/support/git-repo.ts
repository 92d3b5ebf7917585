import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createGit, gitText, type Git } from "../../src/git/run-git.ts";

/** The identity every test repository uses: CI has no global git identity. */
export const TEST_IDENTITY = {
  GIT_AUTHOR_NAME: "Test Author",
  GIT_AUTHOR_EMAIL: "author@example.test",
  GIT_COMMITTER_NAME: "Test Committer",
  GIT_COMMITTER_EMAIL: "committer@example.test",
  GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
} as const;

/** A git runner isolated from the machine's global and system config (`onSpawn`: told of each git process). */
export function testGit(onSpawn?: (args: readonly string[]) => void): Git {
  return createGit({
    ...(onSpawn ? { onSpawn } : {}),
    env: {
      PATH: process.env.PATH,
      HOME: tmpdir(),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      ...TEST_IDENTITY,
    },
  });
}

export interface TestRepo {
  readonly dir: string;
  readonly git: Git;
  /** Runs git in the repository and returns trimmed stdout. */
  run(...args: string[]): Promise<string>;
  /** Writes files (path → content) relative to the repository root. */
  write(files: Record<string, string | Buffer>): Promise<void>;
  /** Writes the files, stages everything and commits; returns the commit id. */
  commit(message: string, files?: Record<string, string | Buffer>): Promise<string>;
  remove(): Promise<void>;
}

/** Creates a throwaway repository on branch `main` with one commit holding `files`. */
export async function createTestRepo(files: Record<string, string | Buffer> = { "README.md": "# test\n" }): Promise<TestRepo> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-test-"));
  const git = testGit();
  const run = (...args: string[]) => gitText(git, { args, cwd: dir });
  const write = async (entries: Record<string, string | Buffer>) => {
    for (const [path, content] of Object.entries(entries)) {
      const full = join(dir, path);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, content);
    }
  };
  const commit = async (message: string, entries: Record<string, string | Buffer> = {}) => {
    await write(entries);
    await run("add", "-A");
    await run("commit", "-q", "--allow-empty", "-m", message);
    return run("rev-parse", "HEAD");
  };
  await run("init", "-q", "-b", "main");
  await commit("initial", files);
  return { dir, git, run, write, commit, remove: () => rm(dir, { recursive: true, force: true }) };
}
