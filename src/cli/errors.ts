/**
 * The CLI's one error path. An expected failure (bad usage, a missing file, not a repository, an
 * invalid plan or config, a missing agent CLI) prints `naruto: <what, and what to do next>` and
 * exits 2. Anything else is a defect of naruto's: one line, and the full trace written to a file
 * (printed instead with `--debug` or NARUTO_DEBUG=1), never a stack on a newcomer's terminal.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ConfigInvalidError } from "../local/index.ts";
import { MissionStillRunningError } from "../local/index.ts";
import { RunRefusedError } from "../local/index.ts";
import { RunOverridesError } from "../local/index.ts";
import { MissionNotFoundError } from "../mission/index.ts";
import { SandboxUnavailableError } from "../sandbox/index.ts";
import { WorkRootError } from "../sandbox/index.ts";
import { EXIT } from "./exit-codes.ts";
import type { CliIO } from "./io.ts";

export { EXIT };

/** Bad usage of a command: the message says the right one. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

const EXPECTED = [
  UsageError,
  RunRefusedError,
  ConfigInvalidError,
  MissionNotFoundError,
  RunOverridesError,
  MissionStillRunningError,
  SandboxUnavailableError,
  WorkRootError,
];

export function isExpected(error: unknown): error is Error {
  return EXPECTED.some((type) => error instanceof type);
}

/** Reads a file the user named (`-`: standard input); a file that cannot be read is a UsageError. */
export async function readUserFile(io: CliIO, file: string, what: string): Promise<string> {
  if (file === "-") return io.readStdin();
  const path = resolve(io.cwd, file);
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a folder" : code === "EACCES" ? "permission denied" : (error as Error).message;
    throw new UsageError(`cannot read ${what} ${file}: ${why}`);
  }
}

/**
 * Prints an error that escaped a command and returns the exit code. The trace of an unexpected
 * one goes to `traceDir` (a file named after the time), or to stderr with `debug`.
 */
export async function reportError(io: CliIO, error: unknown, options: { debug: boolean; traceDir: string; now: Date }): Promise<number> {
  if (isExpected(error)) {
    io.stderr(`naruto: ${error.message}\n`);
    return EXIT.usage;
  }
  const trace = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
  if (options.debug) {
    io.stderr(`naruto: unexpected error: ${trace}\n`);
    return EXIT.usage;
  }
  const file = join(options.traceDir, `naruto-error-${options.now.toISOString().replace(/[:.]/g, "-")}.log`);
  const written = await writeFile(file, `${trace}\n`, { mode: 0o600 }).then(
    () => true,
    () => false,
  );
  const where = written ? `the full trace is in ${file}` : "run again with --debug for the full trace";
  io.stderr(`naruto: unexpected error: ${message}\n(${where}; please report it at https://github.com/naruto-dev/naruto/issues)\n`);
  return EXIT.usage;
}
