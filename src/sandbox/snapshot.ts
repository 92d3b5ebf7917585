/**
 * What an agent left in its work directory, as a tree object, read by naruto's own git (see
 * git-view.ts): a fresh git directory of naruto's, an index that starts as the one naruto
 * checked out with, every file as it is on disk (`add -A`: untracked files count, ignored ones
 * do not), the ignored files the agent committed or staged in its own repository, and the
 * gitlinks (submodules) of its index, exactly (agent-index.ts). Nothing of the agent's repository
 * is trusted but its index, and that only names files on disk to take as they are, and gitlinks.
 * The agent's own commits therefore count exactly as far as their files are on disk (and their
 * gitlinks in its index): they are folded into the one checkpoint.
 *
 * Names git would not take, named pipes, sockets and devices, and files over the size limit
 * (refused-entries.ts: found by `lstat` before anything is hashed) are left out of the tree and
 * returned as `refused`, so that the checkpoint refuses them by name instead of `git add` failing,
 * skipping them or reading them.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { ScopeViolation } from "../gate/index.ts";
import { nameProblem } from "../gate/index.ts";
import { showPath } from "../gate/index.ts";
import { gitText, type Git } from "../git/index.ts";
import { readAgentIndex, type RawPath } from "./agent-index.ts";
import { findRefusedEntries, refusedFiles, walkWorkTree } from "./refused-entries.ts";
import { makeViewGitDir, viewCall, type GitView } from "./git-view.ts";
import { copyIndex, seedIndex, type WorkDir } from "./work-dir.ts";

export interface Snapshot {
  /** The tree of what the agent left (without what `refused` names). */
  readonly tree: string;
  /**
   * The view the tree was read with (for listing changes and checking them): its new objects are
   * in its quarantine, which only it reads, until {@link acceptObjects} moves them into the store.
   */
  readonly view: GitView;
  /** What a report should say: an index of the agent's naruto could not read, say. */
  readonly notes: readonly string[];
  /** Paths git would not take into a tree, by name and rule: the attempt is refused for them. */
  readonly refused: readonly ScopeViolation[];
}

/**
 * Makes naruto's view of a work directory afresh: nothing an agent put in `private/` survives.
 * What it hashes waits in a quarantine of its own (its git directory's `objects/`, see
 * quarantine.ts) until the checkpoint is accepted.
 */
export async function freshView(git: Git, dir: WorkDir): Promise<GitView> {
  const gitDir = join(dir.private, "git");
  await makeViewGitDir(gitDir, dir.objects.format);
  const incoming = join(gitDir, "objects");
  await mkdir(incoming, { mode: 0o700 });
  const view: GitView = { gitDir, workTree: dir.path, index: join(gitDir, "index"), objects: dir.objects, incoming };
  await copyIndex(seedIndex(dir), view.index).catch(async () => {
    // No seed (an older work directory): start from the commit; every file is read again.
    await git(viewCall(view, ["read-tree", dir.start]));
  });
  return view;
}

/**
 * @param options.maxFileSize `limits.max_file_size`: a larger file is refused by its size on disk,
 *   never read
 */
export async function snapshotWorkDir(git: Git, dir: WorkDir, options: { maxFileSize: number }): Promise<Snapshot> {
  const view = await freshView(git, dir);
  // Before any git reads the work tree: git would block on a named pipe it opens by name.
  const walked = await walkWorkTree(dir, { maxFileSize: options.maxFileSize });
  const notes: string[] = [];
  const agent = await readAgentIndex(git, view, dir, notes);
  const refused: ScopeViolation[] = [];
  const refuse = (path: RawPath, problem: { rule: ScopeViolation["rule"]; detail: string }) =>
    refused.push({ path: showPath(Buffer.from(path, "latin1")), rule: problem.rule, detail: problem.detail });

  const gitlinks = agent.gitlinks.filter((g) => {
    const problem = pathProblem(g.path);
    if (problem !== null) refuse(g.path, problem);
    return problem === null;
  });
  const found = await findRefusedEntries(git, view, dir, walked, { skip: new Set(agent.gitlinks.map((g) => g.path)), maxFileSize: options.maxFileSize });
  for (const f of found) refuse(f.path, f);
  // A submodule's checkout is its own repository's, and what is refused stays out: `add` leaves both.
  const excluded = [...agent.gitlinks.map((g) => g.path), ...found.map((f) => f.exclude)];
  await addAll(git, view, excluded);

  const within = (path: RawPath) => excluded.some((e) => path === e || path.startsWith(`${e}/`));
  const staged = agent.stagedIgnored.filter((path) => {
    if (within(path)) return false;
    const problem = pathProblem(path);
    if (problem !== null) refuse(path, problem);
    return problem === null;
  });
  const unfit = await refusedFiles(git, view, dir, { paths: staged, maxFileSize: options.maxFileSize });
  for (const f of unfit) refuse(f.path, f);
  const unfitPaths = new Set(unfit.map((f) => f.path));
  const forced = staged.filter((path) => !unfitPaths.has(path));
  if (forced.length > 0) {
    await git(
      viewCall(view, ["add", "-f", "--pathspec-from-file=-", "--pathspec-file-nul"], { input: Buffer.from(forced.map((p) => `${p}\0`).join(""), "latin1") }),
    );
  }
  if (gitlinks.length > 0) {
    // `--replace`: a gitlink takes the place of whatever files were under its folder.
    const records = gitlinks.map((g) => `160000 ${g.oid}\t${g.path}\0`).join("");
    await git(viewCall(view, ["update-index", "--add", "--replace", "-z", "--index-info"], { input: Buffer.from(records, "latin1") }));
  }
  const tree = await gitText(git, viewCall(view, ["write-tree"]));
  return { tree, view, notes, refused };
}

/** `git add -A` of the whole directory but the excluded paths (pathspec magic, read from stdin: any bytes). */
async function addAll(git: Git, view: GitView, excluded: readonly RawPath[]): Promise<void> {
  if (excluded.length === 0) {
    await git(viewCall(view, ["add", "-A"]));
    return;
  }
  const pathspecs = [":(literal).", ...excluded.map((p) => `:(exclude,literal)${p}`)].map((p) => `${p}\0`).join("");
  const call = viewCall(view, ["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"], { input: Buffer.from(pathspecs, "latin1") });
  await git({ ...call, env: { ...call.env, GIT_LITERAL_PATHSPECS: "0" } });
}

/** The first component of a path git's index would refuse (a staged path of the agent's, say). */
function pathProblem(path: RawPath): { rule: ScopeViolation["rule"]; detail: string } | null {
  for (const part of path.split("/")) {
    const problem = nameProblem(Buffer.from(part, "latin1"));
    if (problem !== null) return problem;
  }
  return null;
}
