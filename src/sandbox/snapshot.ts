/**
 * What an agent left in its work directory, as a tree object, read by naruto's own git (see
 * git-view.ts): a fresh git directory of naruto's, an index that starts as the one naruto
 * checked out with, every file as it is on disk (`add -A`: untracked files count, ignored ones
 * do not) plus the ignored files the agent committed or staged in its own repository. Nothing
 * of the agent's repository is trusted but the list of paths in its index, and those only name
 * files on disk to take as they are. The agent's own commits therefore count exactly as far as
 * their files are on disk: they are folded into the one checkpoint.
 */
import { copyFile, lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { gitText, splitNul, type Git } from "../git/run-git.ts";
import { makeViewGitDir, viewCall, type GitView } from "./git-view.ts";
import { seedIndex, type WorkDir } from "./work-dir.ts";

export interface Snapshot {
  /** The tree of what the agent left. */
  readonly tree: string;
  /** The view the tree was read with (for listing changes and writing the checkpoint). */
  readonly view: GitView;
  /** What a report should say: an index of the agent's naruto could not read, say. */
  readonly notes: readonly string[];
}

/** Makes naruto's view of a work directory afresh: nothing an agent put in `private/` survives. */
export async function freshView(git: Git, dir: WorkDir): Promise<GitView> {
  const gitDir = join(dir.private, "git");
  await makeViewGitDir(gitDir, dir.objects.format);
  const view: GitView = { gitDir, workTree: dir.path, index: join(gitDir, "index"), objects: dir.objects };
  await copyFile(seedIndex(dir), view.index).catch(async () => {
    // No seed (an older work directory): start from the commit; every file is read again.
    await git(viewCall(view, ["read-tree", dir.start]));
  });
  return view;
}

export async function snapshotWorkDir(git: Git, dir: WorkDir): Promise<Snapshot> {
  const view = await freshView(git, dir);
  const notes: string[] = [];
  await git(viewCall(view, ["add", "-A"]));
  const forced = await stagedIgnored(git, view, dir, notes);
  if (forced.length > 0) {
    await git(viewCall(view, ["add", "-f", "--pathspec-from-file=-", "--pathspec-file-nul"], { input: forced.join("\0") + "\0" }));
  }
  const tree = await gitText(git, viewCall(view, ["write-tree"]));
  return { tree, view, notes };
}

/**
 * Ignored files the agent committed or staged in its own repository (its index names them), and
 * that are still on disk. The agent's index is read only when it is a plain file; a broken one
 * is noted and otherwise ignored.
 */
async function stagedIgnored(git: Git, view: GitView, dir: WorkDir, notes: string[]): Promise<string[]> {
  const agentIndex = join(dir.path, ".git", "index");
  const info = await lstat(agentIndex).catch(() => null);
  if (info === null || !info.isFile()) return [];
  // The agent never staged anything: its index is still the one naruto checked out with.
  if (await sameBytes(agentIndex, seedIndex(dir), info.size)) return [];
  const listed = await git(viewCall(view, ["--no-optional-locks", "ls-files", "-z", "--cached", "--ignored", "--exclude-standard"], { index: agentIndex, okCodes: [128] }));
  if (listed.code !== 0) {
    notes.push("the index of the agent's own repository could not be read; ignored files it staged were not taken");
    return [];
  }
  const present: string[] = [];
  for (const path of new Set(splitNul(listed.stdout))) {
    if (await lstat(join(dir.path, path)).then(() => true, () => false)) present.push(path);
  }
  return present;
}

async function sameBytes(a: string, b: string, size: number): Promise<boolean> {
  const other = await lstat(b).catch(() => null);
  if (other === null || other.size !== size || size > 64 * 1024 * 1024) return false;
  const [x, y] = await Promise.all([readFile(a), readFile(b)]);
  return x.equals(y);
}
