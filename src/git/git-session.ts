/**
 * One long-running git process that answers requests on its standard input one at a time
 * (`update-ref --stdin` transactions, `cat-file --batch` and `diff-tree --stdin` reads): what a
 * process per call would answer, without starting one. Its pipes hold naruto's event loop only
 * while a request waits on them, and an idle process ends after a while: a session never keeps
 * naruto running.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";

/** How a request ended: its answer, or the process ended first (its exit code and stderr). */
export type SessionResult =
  | { readonly ok: true; readonly out: Buffer }
  /** `unsent`: the process had ended before the request reached it (nothing was asked). */
  | { readonly ok: false; readonly code: number | null; readonly stderr: string; readonly unsent?: boolean };

export interface GitSession {
  /** False once it ended or was told to end: the next request needs a new session. */
  readonly alive: boolean;
  /**
   * Writes `input` and waits until `answered` finds the whole answer in what came back (the
   * bytes it takes; null: not yet). Requests wait for the one before.
   */
  run(input: string | Buffer, answered: (out: Buffer) => number | null): Promise<SessionResult>;
}

/**
 * How a long-running process answers a call in place of a process of its own: which process (its
 * arguments), what to write to it, where its answer ends, and the one-shot call's stdout from that
 * answer. A named operation (readObjects, checkObjects, diffTrees, updateRefs) carries it in its
 * call; the runner never infers it from a call's arguments.
 */
export interface SessionRequest {
  /** The long-running process's arguments: one process per repository, environment and these. */
  readonly process: readonly string[];
  /** Text is written as UTF-8; bytes as they are (fast-import's latin1 stream). */
  readonly input: string | Buffer;
  readonly answered: (out: Buffer) => number | null;
  readonly stdout: (answer: Buffer) => Buffer;
  /** Whether the process's failure says it cannot take such requests (an old git): then every call runs one-shot. */
  readonly unsupported?: (stderr: string) => boolean;
}

/** How long an idle process stays. */
export const SESSION_IDLE_MS = 5_000;

export function createGitSession(start: () => ChildProcessWithoutNullStreams, idleMs = SESSION_IDLE_MS): GitSession {
  const child = start();
  let alive = true;
  let stderr = "";
  let out: Buffer = Buffer.alloc(0);
  let waiter: { answered: (out: Buffer) => number | null; resolve: (result: SessionResult) => void } | null = null;
  let idle: NodeJS.Timeout | null = null;
  let queue: Promise<unknown> = Promise.resolve();

  const hold = (on: boolean) => {
    for (const pipe of [child.stdout, child.stderr, child.stdin] as unknown as { ref?(): void; unref?(): void }[]) {
      if (on) pipe.ref?.();
      else pipe.unref?.();
    }
    if (on) child.ref();
    else child.unref();
  };
  const settle = (result: SessionResult) => {
    const w = waiter;
    waiter = null;
    w?.resolve(result);
  };
  const ended = (code: number | null) => {
    alive = false;
    if (idle !== null) clearTimeout(idle);
    settle({ ok: false, code, stderr });
  };
  child.stdout.on("data", (chunk: Buffer) => {
    out = out.length === 0 ? chunk : Buffer.concat([out, chunk]);
    if (waiter === null) return;
    let length: number | null;
    try {
      length = waiter.answered(out);
    } catch (e) {
      // Output it cannot read: this process is done with.
      stderr += String(e);
      alive = false;
      child.kill();
      return settle({ ok: false, code: null, stderr });
    }
    if (length === null) return;
    const answer = out.subarray(0, length);
    out = out.subarray(length);
    settle({ ok: true, out: answer });
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  child.stdin.on("error", () => {
    // It ended while being written to: `close` says how.
  });
  child.on("error", (e) => {
    stderr += String(e);
    ended(null);
  });
  // After the pipes are drained: the whole of stderr is there.
  child.on("close", (code) => ended(code));
  hold(false);

  const ask = (input: string | Buffer, answered: (out: Buffer) => number | null) =>
    new Promise<SessionResult>((resolve) => {
      if (!alive) return resolve({ ok: false, code: null, stderr: "the git process had ended", unsent: true });
      if (idle !== null) clearTimeout(idle);
      hold(true);
      stderr = "";
      waiter = {
        answered,
        resolve: (result) => {
          hold(false);
          if (alive) {
            idle = setTimeout(() => {
              // Nothing is asked of it from now on: the next request starts a new process.
              alive = false;
              child.stdin.end();
            }, idleMs);
            idle.unref();
          }
          resolve(result);
        },
      };
      child.stdin.write(input);
    });

  return {
    get alive() {
      return alive;
    },
    run(input, answered) {
      const result = queue.then(() => ask(input, answered));
      queue = result;
      return result;
    },
  };
}
