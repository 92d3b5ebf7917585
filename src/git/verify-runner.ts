import { spawn } from "node:child_process";
import type { VerifyRunner } from "./verify.ts";

export interface VerifyRunnerOptions {
  /** The whole environment of the command (given by an entry point; nothing is inherited). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Kill the command's whole process group after this long (default: no limit). */
  readonly timeoutMs?: number;
  /** Output kept for the report: the last this many bytes of stdout and stderr together. */
  readonly maxOutputBytes?: number;
}

/**
 * The real process runner for the queue's verify command: argv without a shell, stdout and
 * stderr interleaved and bounded, the process group killed on timeout. A command that cannot
 * start is a red run (exit code null), not a crash of the queue.
 */
export function createVerifyRunner(options: VerifyRunnerOptions): VerifyRunner {
  const max = options.maxOutputBytes ?? 64 * 1024;
  return ({ argv, cwd }) =>
    new Promise((resolve) => {
      const [command, ...args] = argv;
      if (command === undefined) {
        resolve({ exitCode: null, output: "empty verify command" });
        return;
      }
      let kept = Buffer.alloc(0);
      const keep = (chunk: Buffer) => {
        kept = Buffer.concat([kept, chunk]);
        if (kept.length > 2 * max) kept = kept.subarray(kept.length - max);
      };
      const child = spawn(command, args, { cwd, env: { ...options.env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
      child.stdout.on("data", keep);
      child.stderr.on("data", keep);
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              keep(Buffer.from(`\nnaruto: verify timed out after ${options.timeoutMs} ms\n`));
              if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
            }, options.timeoutMs);
      child.on("error", (error) => {
        clearTimeout(timer);
        resolve({ exitCode: null, output: `cannot run ${command}: ${error.message}` });
      });
      child.on("exit", () => {
        // Whatever the command left running in its group would hold the output pipes open and
        // keep working in a scratch tree that is about to be removed.
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // The group is already gone.
        }
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ exitCode: code, output: kept.subarray(Math.max(0, kept.length - max)).toString("utf8") });
      });
    });
}
