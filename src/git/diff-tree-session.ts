/**
 * Change reads through a long-running `git diff-tree --stdin` (git-session.ts): what the queue's
 * checkpoints changed, one process per repository instead of one per integrated batch. For each
 * `<commit> <base>` line diff-tree writes that diff; a line that is not an object id it writes
 * back as it is and flushes. So each request ends with a line of naruto's, random and not an
 * object id, and its answer is everything before that line. Like `cat-file --batch`, diff-tree
 * looks an object up afresh when it does not know it (a pack written since is found), so a read
 * answers what a new process would.
 */
import { randomBytes } from "node:crypto";
import type { GitCall } from "./run-git.ts";

/** Raw, NUL-separated, no renames, no user diff drivers: output that no config of the user's changes. */
const ARGS: readonly string[] = ["--no-optional-locks", "diff-tree", "--stdin", "-r", "--raw", "-z", "--no-renames", "--no-ext-diff", "--no-textconv"];

/**
 * The named operation that reads what each `[commit, base]` pair changed (`diff-tree --stdin`),
 * from the repository's long-running process: parse its output with parseRawDiff. The request
 * ends with a line of its own (random, and never an object id: it starts with `n`), which
 * diff-tree writes back after the request's diffs; the answer is what came before it.
 */
export function diffTrees(cwd: string, pairs: readonly (readonly [string, string])[]): GitCall {
  const lines = pairs.map(([commit, base]) => `${commit} ${base}\n`).join("");
  const marker = `naruto-end-${randomBytes(12).toString("hex")}`;
  const request = `${lines}${marker}\n`;
  return {
    args: [...ARGS],
    cwd,
    input: lines,
    session: { process: ARGS, input: request, answered: diffTreeAnswered(marker), stdout: (answer) => answer.subarray(0, answer.length - marker.length - 1) },
  };
}

/**
 * Where the answer to a request ended by `marker` ends (null: not all there yet): the output ends
 * with the marker's line, which starts the output or follows the NUL that ends a diff's last
 * field, or the newline of a header diff-tree writes without one (a pair of trees). A path
 * naming the marker would need to guess 96 random bits.
 */
export function diffTreeAnswered(marker: string): (out: Buffer) => number | null {
  const line = Buffer.from(`${marker}\n`, "latin1");
  return (out) => {
    if (out.length < line.length || !out.subarray(out.length - line.length).equals(line)) return null;
    const before = out.length - line.length;
    return before === 0 || out[before - 1] === 0 || out[before - 1] === 10 ? out.length : null;
  };
}
