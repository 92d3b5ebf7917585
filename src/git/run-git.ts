import { spawn } from "node:child_process";
import { createGitSession, type GitSession, type SessionRequest } from "./git-session.ts";

/** How one git command is run: always an argument array, never a shell. */
export interface GitCall {
  readonly args: readonly string[];
  /** Working directory (a repository, a work tree, or a bare repository). */
  readonly cwd: string;
  /** Bytes for standard input (closed when absent). */
  readonly input?: string | Buffer;
  /** Extra environment on top of the runner's base environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Exit codes that are answers, not failures (e.g. `diff --quiet` exits 1 for "different"). */
  readonly okCodes?: readonly number[];
  /**
   * How a long-running process may answer the call instead (set by a named operation:
   * readObjects, checkObjects, diffTrees, updateRefs). Absent: a process of its own.
   */
  readonly session?: SessionRequest;
}

export interface GitOutput {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** The port every git adapter in `src/git/` goes through, so tests can count or fake calls. */
export type Git = (call: GitCall) => Promise<GitOutput>;

/** git failed. Carries the command, the exit code and the tail of stderr. */
export class GitError extends Error {
  override readonly name = "GitError";
  readonly args: readonly string[];
  readonly code: number | null;
  readonly stderr: string;

  constructor(args: readonly string[], code: number | null, stderr: string, options?: { cause?: unknown }) {
    const tail = stderr.trim().split("\n").slice(-6).join("\n");
    super(`git ${args.join(" ")} failed (exit ${code ?? "signal"})${tail ? `:\n${tail}` : ""}`, options);
    this.args = args;
    this.code = code;
    this.stderr = tail;
  }
}

export interface GitRunnerOptions {
  /** The base environment for git (normally the process environment, given by an entry point). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The git executable. */
  readonly binary?: string;
  /**
   * Calls that carry a session request (the named operations: ref writes, object and change
   * reads) go to long-running processes (git-session.ts); default true. False: a process per call.
   */
  readonly sessions?: boolean;
  /** Told every git process started (its arguments): for counting. */
  readonly onSpawn?: (args: readonly string[]) => void;
}

/**
 * Creates the real git runner.
 *
 * git's output is read as bytes (paths come NUL-separated with `-z`), and prompts for
 * credentials or editors are switched off so that no call can hang waiting for a person.
 * Replace refs are off (`GIT_NO_REPLACE_OBJECTS`): naruto reads the objects it names. With them,
 * a `refs/replace/<checkpoint>` (an unsandboxed agent can write one) would make the queue
 * integrate another commit's change than the one the gate checked (docs/architecture.md), and the
 * store read another mission version than the one its ref names.
 */
export function createGit(options: GitRunnerOptions = {}): Git {
  const binary = options.binary ?? "git";
  const base = { ...(options.env ?? {}) };
  const environment = (extra?: Readonly<Record<string, string>>) => ({
    ...base,
    GIT_TERMINAL_PROMPT: "0",
    GIT_EDITOR: "true",
    GIT_PAGER: "cat",
    LC_ALL: "C",
    GIT_NO_REPLACE_OBJECTS: "1",
    ...extra,
  });
  const once = oneShot(binary, environment, options.onSpawn);
  if (options.sessions === false) return once;
  const sessions = new Map<string, GitSession>();
  // Processes that cannot take requests here (`update-ref --stdin` without transactions, before git 2.27): a process per call.
  const unsupported = new Set<string>();
  /** Asks the long-running `args` in the call's repository and environment; a process that had ended is replaced once. */
  const ask = async (call: GitCall, args: readonly string[], input: string | Buffer, answered: (out: Buffer) => number | null) => {
    const key = JSON.stringify([call.cwd, call.env ?? {}, args]);
    for (let tries = 0; ; tries++) {
      let session = sessions.get(key);
      if (session === undefined || !session.alive) {
        session = createGitSession(() => {
          options.onSpawn?.(args);
          return spawn(binary, args as string[], { cwd: call.cwd, env: environment(call.env), stdio: ["pipe", "pipe", "pipe"] });
        });
        sessions.set(key, session);
      }
      const result = await session.run(input, answered);
      if (result.ok || !result.unsent || tries > 0) return result;
    }
  };
  return async (call) => {
    const request = call.session;
    const kind = request === undefined ? "" : JSON.stringify(request.process);
    if (request === undefined || unsupported.has(kind)) return once(call);
    const result = await ask(call, request.process, request.input, request.answered);
    if (result.ok) return { code: 0, stdout: request.stdout(result.out), stderr: "" };
    if (request.unsupported?.(result.stderr) === true) {
      unsupported.add(kind);
      return once(call);
    }
    throw new GitError(call.args, result.code, result.stderr);
  };
}

/** A process per call. */
function oneShot(
  binary: string,
  environment: (extra?: Readonly<Record<string, string>>) => NodeJS.ProcessEnv,
  onSpawn: ((args: readonly string[]) => void) | undefined,
): Git {
  return (call) =>
    new Promise((resolve, reject) => {
      onSpawn?.(call.args);
      const child = spawn(binary, call.args as string[], {
        cwd: call.cwd,
        env: environment(call.env),
        stdio: ["pipe", "pipe", "pipe"],
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (b: Buffer) => out.push(b));
      child.stderr.on("data", (b: Buffer) => err.push(b));
      child.on("error", (e) => reject(new GitError(call.args, null, String(e), { cause: e })));
      child.stdin.on("error", () => {
        // git may exit before reading all input (e.g. after an error); the exit code says why.
      });
      child.on("close", (code) => {
        const stderr = Buffer.concat(err).toString("utf8");
        const exit = code ?? -1;
        if (exit === 0 || call.okCodes?.includes(exit)) {
          resolve({ code: exit, stdout: Buffer.concat(out), stderr });
        } else {
          reject(new GitError(call.args, code, stderr));
        }
      });
      if (call.input !== undefined) child.stdin.end(call.input);
      else child.stdin.end();
    });
}

/** Runs git and returns stdout as text without the final newline. */
export async function gitText(git: Git, call: GitCall): Promise<string> {
  const { stdout } = await git(call);
  return stdout.toString("utf8").replace(/\n$/, "");
}

/** Splits `-z` output into its NUL-terminated fields. */
export function splitNul(buf: Buffer | string): string[] {
  const text = typeof buf === "string" ? buf : buf.toString("utf8");
  const parts = text.split("\0");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}
