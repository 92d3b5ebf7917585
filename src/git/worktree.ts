import { mkdir, readdir, realpath, rm, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { GitError, gitText, type Git } from "./run-git.ts";

/**
 * The work tree of one attempt. Plain data (JSON-safe), so a driver can store it and finish the
 * attempt in another process.
 */
export interface Worktree {
  readonly mission: string;
  readonly item: string;
  /** Full ref name of the worker branch: `refs/heads/naruto/<mission>--<item>`. */
  readonly branch: string;
  /** The work tree directory the agent runs in. */
  readonly path: string;
  /** git's administrative directory of this work tree (`<common-dir>/worktrees/<name>`). */
  readonly gitDir: string;
  /** The commit the attempt started from: the checkpoint's parent. */
  readonly start: string;
  /** Every ref of the repository (ref name → object id) right after the work tree was made. */
  readonly refs: Readonly<Record<string, string>>;
}

export type WorktreeProblem = "invalid_id" | "not_a_commit" | "branch_exists";

/** A work tree could not be made; `problem` says why without parsing the message. */
export class WorktreeError extends Error {
  override readonly name = "WorktreeError";
  readonly problem: WorktreeProblem;
  constructor(problem: WorktreeProblem, message: string) {
    super(message);
    this.problem = problem;
  }
}

export interface WorktreeTarget {
  readonly git: Git;
  /** The user's repository (any work tree of it, or the repository directory). */
  readonly repoDir: string;
  readonly mission: string;
  readonly item: string;
}

/** Where naruto keeps its work trees, inside git's common directory so the user never sees them. */
export const WORKTREES_DIR = join("naruto", "worktrees");

// Mission and item ids become ref components and directory names: keep them to what both allow
// (the plan format's id rule, minus what `git check-ref-format` rejects).
const ID = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/**
 * `naruto/<mission>--<item>`, the worker branch of an item (throws WorktreeError for bad ids).
 * Not `naruto/<mission>/<item>`: git cannot hold a ref and refs below it, and the queue is
 * `naruto/<mission>`.
 */
export function workerBranch(mission: string, item: string): string {
  for (const [what, id] of [["mission", mission], ["item", item]] as const) {
    if (!ID.test(id) || id.includes("..") || id.endsWith(".lock") || id.endsWith(".")) {
      throw new WorktreeError("invalid_id", `${what} id ${JSON.stringify(id)} cannot name a branch: use [a-z0-9._-], starting with a letter or digit`);
    }
  }
  return `naruto/${mission}--${item}`;
}

/**
 * Creates the worker branch at `at` and checks it out in a new work tree under
 * `<git-common-dir>/naruto/worktrees/<mission>/<item>`. The user's work tree, index and HEAD are
 * not read or written, so a dirty checkout is fine. Fails with `branch_exists` rather than
 * overwrite an existing worker branch: use {@link recreateWorktree} for a retry.
 */
export async function createWorktree(options: WorktreeTarget & { readonly at: string }): Promise<Worktree> {
  const { git, repoDir } = options;
  const branch = workerBranch(options.mission, options.item);
  const start = await resolveCommit(git, repoDir, options.at);
  const exists = await git({ args: ["--no-optional-locks", "show-ref", "--verify", "--quiet", `refs/heads/${branch}`], cwd: repoDir, okCodes: [1] });
  if (exists.code === 0) {
    throw new WorktreeError("branch_exists", `branch ${branch} already exists: finish or remove the previous attempt, or recreate the work tree for a retry`);
  }
  return addWorktree(options, branch, start, "-b");
}

/**
 * For a retry: removes the item's old work tree (if any) and re-creates the worker branch and a
 * fresh work tree at `at` (normally the current queue head).
 */
export async function recreateWorktree(options: WorktreeTarget & { readonly at: string }): Promise<Worktree> {
  const branch = workerBranch(options.mission, options.item);
  const start = await resolveCommit(options.git, options.repoDir, options.at);
  await removeWorktree({ ...options, deleteBranch: false });
  return addWorktree(options, branch, start, "-B");
}

/**
 * Removes the item's work tree (even when the agent left it dirty or deleted it) and prunes git's
 * record of it; with `deleteBranch`, the worker branch goes too. Safe to call twice.
 */
export async function removeWorktree(options: WorktreeTarget & { readonly deleteBranch: boolean }): Promise<void> {
  const { git, repoDir } = options;
  const branch = workerBranch(options.mission, options.item);
  const path = await worktreePath(git, repoDir, options.mission, options.item);
  // Twice --force: also removes a dirty or locked work tree (the agent may have locked it).
  // That removes git's record with it; it fails when there is no such work tree (a second
  // call), and git still refuses some (e.g. with initialized submodules): the directory is
  // naruto's own, so deleting it and letting `prune` drop git's record is equally clean.
  const removed = await git({ args: ["worktree", "remove", "--force", "--force", path], cwd: repoDir }).then(
    () => true,
    (error: unknown) => {
      if (!(error instanceof GitError)) throw error;
      return false;
    },
  );
  await rm(path, { recursive: true, force: true });
  if (!removed) await git({ args: ["worktree", "prune"], cwd: repoDir });
  await rmdir(dirname(path)).catch(() => undefined); // only when empty: other items may still be there
  if (options.deleteBranch) {
    await git({ args: ["-c", "core.hooksPath=/dev/null", "update-ref", "-d", `refs/heads/${branch}`], cwd: repoDir });
  }
}

/**
 * Removes every item work tree of the mission: what a run that was killed left behind (a live
 * run removes each one when its attempt ends). Only for a mission no run drives any more.
 * Returns the items whose work tree it removed.
 */
export async function removeMissionWorktrees(options: { readonly git: Git; readonly repoDir: string; readonly mission: string }): Promise<string[]> {
  const folder = join(await realCommonDir(options.git, options.repoDir), WORKTREES_DIR, options.mission);
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const removed: string[] = [];
  for (const entry of entries) {
    // Item ids are valid branch components; anything else in the folder is not a work tree of ours.
    if (!entry.isDirectory() || !ID.test(entry.name)) continue;
    await removeWorktree({ ...options, item: entry.name, deleteBranch: false });
    removed.push(entry.name);
  }
  return removed;
}

/** Every ref visible from `gitDir` (shared refs plus that work tree's own), name → object id. */
export async function readRefs(git: Git, gitDir: string): Promise<Record<string, string>> {
  const text = await gitText(git, { args: ["--git-dir", gitDir, "--no-optional-locks", "for-each-ref", "--format=%(objectname) %(refname)"], cwd: gitDir });
  const refs: Record<string, string> = {};
  // Ref names cannot contain spaces or newlines, so lines split safely.
  for (const line of text.split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) refs[line.slice(space + 1)] = line.slice(0, space);
  }
  return refs;
}

/**
 * Arguments that point git at the attempt's work tree explicitly, so that a `.git` the agent
 * replaced or added in the work tree cannot redirect naruto's own git calls.
 */
export function worktreeArgs(worktree: Pick<Worktree, "gitDir" | "path">): string[] {
  return ["--git-dir", worktree.gitDir, "--work-tree", worktree.path];
}

async function addWorktree(options: WorktreeTarget, branch: string, start: string, flag: "-b" | "-B"): Promise<Worktree> {
  const { git, repoDir, mission, item } = options;
  const path = await worktreePath(git, repoDir, mission, item);
  await mkdir(dirname(path), { recursive: true });
  // Hooks are the user's, for the user's checkouts; a post-checkout hook has no business here.
  await git({ args: ["-c", "core.hooksPath=/dev/null", "worktree", "add", "--quiet", flag, branch, path, start], cwd: repoDir });
  const gitDir = await gitText(git, { args: ["rev-parse", "--absolute-git-dir"], cwd: path });
  const refs = await readRefs(git, gitDir);
  return { mission, item, branch: `refs/heads/${branch}`, path, gitDir, start, refs };
}

async function resolveCommit(git: Git, repoDir: string, at: string): Promise<string> {
  const out = await gitText(git, { args: ["rev-parse", "--verify", "--quiet", "--end-of-options", `${at}^{commit}`], cwd: repoDir, okCodes: [1] });
  if (!/^[0-9a-f]{40,64}$/.test(out)) throw new WorktreeError("not_a_commit", `${JSON.stringify(at)} is not a commit of this repository`);
  return out;
}

/** Where the item's work tree is (or would be): `<git-common-dir>/naruto/worktrees/<mission>/<item>`. */
export async function worktreePath(git: Git, repoDir: string, mission: string, item: string): Promise<string> {
  return join(await realCommonDir(git, repoDir), WORKTREES_DIR, mission, item);
}

/**
 * The real path of the repository's common git folder, asked of git once per folder and kept:
 * it does not change while naruto runs, and a run asks for it for every work tree it makes.
 */
const commonDirs = new Map<string, Promise<string>>();
function realCommonDir(git: Git, repoDir: string): Promise<string> {
  let found = commonDirs.get(repoDir);
  if (found === undefined) {
    // git records work trees by real path; compare like with like (macOS /var → /private/var).
    found = gitText(git, { args: ["rev-parse", "--path-format=absolute", "--git-common-dir"], cwd: repoDir }).then((dir) => realpath(dir));
    found.catch(() => commonDirs.delete(repoDir));
    commonDirs.set(repoDir, found);
  }
  return found;
}
