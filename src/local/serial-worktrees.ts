/**
 * git's work-tree bookkeeping (`.git/worktrees/<name>/`) is not safe against itself: while one
 * `git worktree add` is creating an entry, a second `worktree add`, `list`, `remove` or `prune`
 * reads the half-made entry and fails ("failed to read .git/worktrees/x/commondir"), and `prune`
 * may even delete it. The local driver runs attempts, queue verification and review side by side
 * in one repository, so every `git worktree …` call of the run goes through one queue.
 */
import type { Git, GitCall } from "../git/run-git.ts";

/** Options of git itself that take a separate value (`git -c k=v worktree …`). */
const WITH_VALUE = new Set(["-c", "-C", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"]);

/** The git subcommand of a call: the first argument that is not an option of git itself. */
export function gitSubcommand(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith("-")) return arg;
  }
  return null;
}

/** The same git, with `git worktree …` calls run one at a time (in the order they were made). */
export function serialWorktrees(git: Git): Git {
  let tail: Promise<unknown> = Promise.resolve();
  return (call: GitCall) => {
    if (gitSubcommand(call.args) !== "worktree") return git(call);
    const result = tail.then(() => git(call));
    tail = result.catch(() => undefined);
    return result;
  };
}
