/**
 * A throwaway detached work tree for agents that only read the repository (the planner, the
 * review agent): they never run in the user's checkout, and what they change is discarded.
 */
import { rm } from "node:fs/promises";
import { gitText, type Git } from "../git/run-git.ts";

export async function withScratchTree<T>(input: { git: Git; repoDir: string; path: string; commit: string }, use: (dir: string) => Promise<T>): Promise<T> {
  const { git, repoDir, path } = input;
  await gitText(git, { args: ["-c", "core.hooksPath=/dev/null", "worktree", "add", "--detach", path, input.commit], cwd: repoDir });
  try {
    return await use(path);
  } finally {
    await gitText(git, { args: ["worktree", "remove", "--force", path], cwd: repoDir }).catch(async () => {
      await rm(path, { recursive: true, force: true });
      await gitText(git, { args: ["worktree", "prune"], cwd: repoDir }).catch(() => "");
    });
  }
}
