import { lstat, rm } from "node:fs/promises";
import { join } from "node:path";
import { gitText, splitNul, type Git } from "./run-git.ts";
import { worktreeArgs, type Worktree } from "./worktree.ts";

/** Who a checkpoint is by. */
export interface Identity {
  readonly name: string;
  readonly email: string;
}

export const DEFAULT_AUTHOR: Identity = { name: "naruto", email: "naruto@users.noreply.github.com" };

/**
 * Turns what the agent left in the work tree into a tree object, without touching the work
 * tree's own index or HEAD: a temporary index is seeded with HEAD's tree (so the agent's own
 * commits count, and index flags the agent set, like assume-unchanged, cannot hide a change),
 * then takes every file as it is on disk (`add -A`: untracked files count, ignored ones do not),
 * plus any ignored file the agent deliberately staged with `add -f`.
 */
export async function snapshotWorktree(options: { readonly git: Git; readonly worktree: Pick<Worktree, "gitDir" | "path">; readonly head: string }): Promise<string> {
  const { git, worktree } = options;
  const args = worktreeArgs(worktree);
  const cwd = worktree.path;
  const index = join(worktree.gitDir, "naruto-snapshot-index");
  const env = { GIT_INDEX_FILE: index, GIT_LITERAL_PATHSPECS: "1" };
  await rm(index, { force: true });
  try {
    await git({ args: [...args, "read-tree", options.head], cwd, env });
    await git({ args: [...args, "add", "-A"], cwd, env });
    const forced = await stagedIgnored(git, worktree);
    if (forced.length > 0) {
      await git({ args: [...args, "add", "-f", "--pathspec-from-file=-", "--pathspec-file-nul"], cwd, env, input: forced.join("\0") + "\0" });
    }
    return await gitText(git, { args: [...args, "write-tree"], cwd, env });
  } finally {
    await rm(index, { force: true });
  }
}

/** Ignored files in the agent's own index that are still on disk. */
async function stagedIgnored(git: Git, worktree: Pick<Worktree, "gitDir" | "path">): Promise<string[]> {
  const { stdout } = await git({
    args: [...worktreeArgs(worktree), "--no-optional-locks", "ls-files", "-z", "--cached", "--ignored", "--exclude-standard"],
    cwd: worktree.path,
  });
  const present: string[] = [];
  for (const path of new Set(splitNul(stdout))) {
    if (await lstat(join(worktree.path, path)).then(() => true, () => false)) present.push(path);
  }
  return present;
}

export interface CheckpointMessage {
  readonly title: string;
  readonly body?: string;
  readonly mission: string;
  readonly item: string;
  readonly attempt: number;
  readonly agent: string;
}

/**
 * The checkpoint's message: title, optional body, then the trailers the queue and reports read.
 *
 * @example formatCheckpointMessage({ title: "Validate input", mission: "m-1", item: "users-api", attempt: 1, agent: "claude" })
 * → "Validate input\n\nNaruto-Mission: m-1\nNaruto-Item: users-api\nNaruto-Attempt: 1\nNaruto-Agent: claude\n"
 */
export function formatCheckpointMessage(m: CheckpointMessage): string {
  const title = oneLine(m.title) || m.item;
  const body = (m.body ?? "").replace(/\r\n?/g, "\n").trim();
  const trailers = [
    `Naruto-Mission: ${oneLine(m.mission)}`,
    `Naruto-Item: ${oneLine(m.item)}`,
    `Naruto-Attempt: ${m.attempt}`,
    `Naruto-Agent: ${oneLine(m.agent)}`,
  ].join("\n");
  return [title, body, trailers].filter((part) => part !== "").join("\n\n") + "\n";
}

// A trailer or title is one line: a newline would let text forge extra trailers.
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
}

/**
 * Writes the one checkpoint commit (parent: the start commit, so `checkpoint^` is the base the
 * queue diffs against) and moves the worker branch to it with compare-and-swap from `expectedTip`
 * (where the agent left the branch). `commit-tree` and `update-ref` touch no index or work tree.
 */
export async function writeCheckpoint(options: {
  readonly git: Git;
  readonly worktree: Worktree;
  readonly tree: string;
  readonly expectedTip: string;
  readonly message: string;
  readonly author: Identity;
  readonly committer?: Identity;
  /** Fixed author and committer date (default: now). */
  readonly date?: Date;
}): Promise<string> {
  const { git, worktree } = options;
  const committer = options.committer ?? options.author;
  const date = options.date ? `${Math.floor(options.date.getTime() / 1000)} +0000` : undefined;
  const env: Record<string, string> = {
    GIT_AUTHOR_NAME: options.author.name,
    GIT_AUTHOR_EMAIL: options.author.email,
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}),
  };
  const cwd = worktree.gitDir;
  // --no-gpg-sign: a signing config meant for the user would prompt or fail in a job.
  const commit = await gitText(git, {
    args: ["--git-dir", worktree.gitDir, "commit-tree", "--no-gpg-sign", "-p", worktree.start, options.tree],
    cwd,
    env,
    input: options.message,
  });
  await git({
    args: ["--git-dir", worktree.gitDir, "-c", "core.hooksPath=/dev/null", "update-ref", "-m", `naruto: checkpoint ${worktree.item}`, worktree.branch, commit, options.expectedTip],
    cwd,
  });
  return commit;
}
