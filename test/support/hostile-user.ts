/**
 * The user a hostile agent attacks, as the hostile suites (test/local/hostile-doors.git.test.ts,
 * hostile-gate.git.test.ts) set them up: a repository and a HOME of the test's own, given to an
 * unprivileged user when the tests run as root (CI), and what of the user's an agent could change,
 * read before and after a run to compare.
 */
import { execFile } from "node:child_process";
import { chown, lstat, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createGit, gitText, type Git } from "../../src/git/run-git.ts";
import type { Mission } from "../../src/mission/document.ts";
import { createLocalMissionStore } from "../../src/store/git-store.ts";
import { createTestRepo, TEST_IDENTITY, type TestRepo } from "./git-repo.ts";
import { snapshotCheckout } from "./worker-fixture.ts";

export const IS_ROOT = process.getuid?.() === 0;

/** Whom naruto runs as: its own user (null), or an unprivileged one through `setpriv`. */
export type RunAs = { readonly uid: number; readonly gid: number } | null;

/** The users the attacks run as: naruto's own; as root, root and then `other`, an unprivileged user. */
export function attackedUsers(other: NonNullable<RunAs>): [string, RunAs][] {
  return IS_ROOT
    ? [
        ["root", null],
        [`an unprivileged user (uid ${other.uid}, setpriv)`, other],
      ]
    : [["naruto's own user", null]];
}

/** A repository (`README.md`, `src/keep.txt`) and a HOME of the test's own; `cleanups` removes both. */
export async function userRepo(cleanups: (() => Promise<void>)[]): Promise<{ repo: TestRepo; home: string }> {
  const repo = await createTestRepo({ "README.md": "# app\n", "src/keep.txt": "keep\n" });
  const home = await mkdtemp(join(tmpdir(), "naruto-home-"));
  cleanups.push(
    () => repo.remove(),
    () => rm(home, { recursive: true, force: true }),
  );
  return { repo, home };
}

/** Gives the repository and HOME to `as`. */
export async function giveTo(as: NonNullable<RunAs>, repoDir: string, home: string): Promise<void> {
  for (const dir of [repoDir, home]) await chownTree(dir, as);
  // The index's stat data, as its new owner's git records it: a refresh is no change.
  await promisify(execFile)("setpriv", [`--reuid=${as.uid}`, `--regid=${as.gid}`, "--clear-groups", "--", "git", "update-index", "-q", "--refresh"], {
    cwd: repoDir,
    env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  }).catch(() => undefined);
}

export async function chownTree(path: string, as: NonNullable<RunAs>): Promise<void> {
  const info = await lstat(path);
  if (info.isDirectory()) for (const name of await readdir(path)) await chownTree(join(path, name), as);
  if (!info.isSymbolicLink()) await chown(path, as.uid, as.gid);
}

/** A git that reads the repository whoever owns it (root reads another user's repository with safe.directory). */
export function anyOwnerGit(): Git {
  return createGit({
    env: {
      PATH: process.env.PATH,
      HOME: tmpdir(),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "safe.directory",
      GIT_CONFIG_VALUE_0: "*",
      ...TEST_IDENTITY,
    },
  });
}

/** What an agent could change of the user's repository: the checkout, the refs (naruto's own aside), `.git/config`. */
export async function userRepoFiles(git: Git, repoDir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = { ...(await snapshotCheckout(repoDir)) };
  const refs = await gitText(git, { args: ["for-each-ref", "--format=%(objectname) %(refname)"], cwd: repoDir });
  files.refs = refs
    .split("\n")
    .filter((l) => !/ refs\/(heads\/)?naruto\//.test(l))
    .join("\n");
  files[".git/config"] = await readFile(join(repoDir, ".git", "config"), "utf8");
  return files;
}

/** The bytes of the files under `dir` (an object store's size). */
export async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await lstat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/** The mission a run stored in the repository (its first); null when it stored none. */
export async function storedMission(git: Git, repoDir: string): Promise<Mission | null> {
  const store = createLocalMissionStore({ git, repoDir });
  const [id] = await store.list();
  return id === undefined ? null : ((await store.load(id))?.mission ?? null);
}
