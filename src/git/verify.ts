/**
 * Runs the queue's verify command on a candidate commit in a scratch work tree (a detached
 * `git worktree` under `<git-common-dir>/naruto/scratch/`), never in the user's checkout.
 *
 * The command is an argv array, run without a shell. It comes only from reviewed config
 * (DESIGN.md §8); a config that holds a command line passes `["sh", "-c", line]` explicitly.
 * The process runner is injected so that tests can fake and count runs.
 */
import { rm } from "node:fs/promises";
import type { Git } from "./run-git.ts";
import { scratchPath } from "./queue-scratch.ts";

export interface VerifyRequest {
  readonly argv: readonly string[];
  /** The scratch work tree, checked out at the candidate. */
  readonly cwd: string;
}

export interface ProcessResult {
  /** null when the command could not start or was killed. */
  readonly exitCode: number | null;
  readonly output: string;
}

export type VerifyRunner = (request: VerifyRequest) => Promise<ProcessResult>;

export interface QueueVerify {
  readonly argv: readonly string[];
  readonly run: VerifyRunner;
}

export interface VerifyOutcome {
  readonly green: boolean;
  readonly exitCode: number | null;
  /** The last lines of the command's output, for the report. */
  readonly outputTail: string;
}

export interface Verifier {
  verify(commit: string): Promise<VerifyOutcome>;
  /** Removes the scratch work tree (safe to call when nothing ran). */
  close(): Promise<void>;
}

/** Hooks are the user's automation for their own checkouts, not for naruto's scratch ones. */
const NO_HOOKS = ["-c", "core.hooksPath=/dev/null"];

export function tail(text: string, maxChars = 4000): string {
  return text.length <= maxChars ? text : text.slice(text.length - maxChars);
}

export function createVerifier(input: { git: Git; repoDir: string; command: QueueVerify }): Verifier {
  const { git, repoDir, command } = input;
  let scratch: Promise<string> | undefined;
  const open = async (commit: string) => {
    const dir = await scratchPath(git, repoDir, "scratch", "verify");
    await git({ args: [...NO_HOOKS, "worktree", "add", "--detach", "--no-checkout", dir, commit], cwd: repoDir });
    return dir;
  };
  return {
    async verify(commit) {
      scratch ??= open(commit);
      const dir = await scratch;
      // Every candidate starts from a pristine tree: nothing a previous run built survives.
      await git({ args: [...NO_HOOKS, "checkout", "-q", "--detach", "--force", commit], cwd: dir });
      await git({ args: ["clean", "-q", "-ffdx"], cwd: dir });
      const result = await command.run({ argv: command.argv, cwd: dir });
      return { green: result.exitCode === 0, exitCode: result.exitCode, outputTail: tail(result.output) };
    },
    async close() {
      if (!scratch) return;
      const dir = await scratch.catch(() => undefined);
      scratch = undefined;
      if (dir === undefined) return;
      try {
        await git({ args: ["worktree", "remove", "--force", "--force", dir], cwd: repoDir });
      } catch {
        // Already half gone: remove what is left and let git forget the work tree.
        await rm(dir, { recursive: true, force: true });
        await git({ args: ["worktree", "prune"], cwd: repoDir });
      }
    },
  };
}
