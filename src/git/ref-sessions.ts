/**
 * naruto's ref writes through long-running `git update-ref --stdin` processes: one per
 * repository, git options, environment (the reflog's identity) and reflog message, each write one transaction (`start`, its lines,
 * `prepare`, `commit`). A mission writes its refs several times an item (every save of its state,
 * every checkpoint, every integration); a process each cost more than the rest of its git.
 *
 * A transaction is what the one-shot command was: its compare-and-swap is checked under the
 * ref's lock at `prepare`, from the ref as it is then (git reads it afresh), and when it fails,
 * git ends the process with the message the one-shot command would have printed: the call fails
 * with the same GitError, and the next write starts a new process. An idle process ends after a
 * while, and never keeps naruto running.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { GitCall } from "./run-git.ts";

/** One write of refs as `update-ref --stdin` lines, and what its process is keyed by. */
export interface RefTransaction {
  /** The git options before `update-ref` (`-c core.hooksPath=/dev/null`). */
  readonly options: readonly string[];
  /** The reflog message (`-m`); null: git's own. */
  readonly message: string | null;
  /** `update`, `create`, `delete` and `verify` lines, each ending in a newline. */
  readonly lines: string;
}

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const REF = /^[^\s-][^\s]*$/;
const VERBS = new Set(["update", "create", "delete", "verify"]);

/**
 * The transaction a call to `git update-ref` is (pure): `update-ref [-m M] REF NEW [OLD]`
 * (OLD "": the ref must not exist), `update-ref [-m M] -d REF [OLD]`, or `update-ref [-m M]
 * --stdin` with plain lines. Null for every other call, which runs as it is.
 */
export function refTransactionOf(call: Pick<GitCall, "args" | "input" | "okCodes">): RefTransaction | null {
  if (call.okCodes !== undefined) return null;
  const args = call.args;
  const at = args.indexOf("update-ref");
  if (at < 0) return null;
  const options = args.slice(0, at);
  // Only `-c key=value` before it: anything else changes where or how git runs.
  for (let i = 0; i < options.length; i += 2) if (options[i] !== "-c" || options[i + 1] === undefined) return null;
  let message: string | null = null;
  let del = false;
  let stdin = false;
  const rest: string[] = [];
  for (let i = at + 1; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "-m" && args[i + 1] !== undefined && !args[i + 1]?.includes("\n")) message = args[++i] ?? null;
    else if (arg === "-d") del = true;
    else if (arg === "--stdin") stdin = true;
    else if (arg.startsWith("-") && arg !== "") return null;
    else rest.push(arg);
  }
  if (stdin) {
    if (del || rest.length > 0) return null;
    const input = typeof call.input === "string" ? call.input : call.input?.toString("utf8");
    if (input === undefined) return null;
    const lines = input.split("\n").filter((l) => l !== "");
    if (lines.length === 0 || !lines.every(plainLine)) return null;
    return { options, message, lines: lines.map((l) => `${l}\n`).join("") };
  }
  if (call.input !== undefined) return null;
  const [ref, a, b, ...more] = rest;
  if (ref === undefined || !REF.test(ref) || more.length > 0) return null;
  if (del) {
    if (b !== undefined) return null;
    if (a === undefined) return { options, message, lines: `delete ${ref}\n` };
    return OBJECT_ID.test(a) ? { options, message, lines: `delete ${ref} ${a}\n` } : null;
  }
  if (a === undefined || !OBJECT_ID.test(a)) return null;
  if (b === undefined) return { options, message, lines: `update ${ref} ${a}\n` };
  if (b === "") return { options, message, lines: `create ${ref} ${a}\n` };
  return OBJECT_ID.test(b) ? { options, message, lines: `update ${ref} ${a} ${b}\n` } : null;
}

/** A line of `update-ref --stdin` naruto may send: a verb, a ref, object ids. */
function plainLine(line: string): boolean {
  const [verb, ref, ...values] = line.split(" ");
  return verb !== undefined && VERBS.has(verb) && ref !== undefined && REF.test(ref) && values.length <= 2 && values.every((v) => OBJECT_ID.test(v));
}

/** How one transaction ended: committed, or the process ended first (its exit code and stderr). */
export type TransactionResult =
  | { readonly ok: true }
  /** `unsent`: the process had ended before the transaction reached it (nothing was tried). */
  | { readonly ok: false; readonly code: number | null; readonly stderr: string; readonly unsent?: boolean };

export interface RefSession {
  run(lines: string): Promise<TransactionResult>;
  readonly alive: boolean;
}

/** How long an idle process stays. */
export const SESSION_IDLE_MS = 5_000;

/**
 * One `git … update-ref -m M --stdin` process (started by `start`), running its transactions one
 * at a time. Its pipes hold naruto's event loop only while a transaction waits on them.
 */
export function createRefSession(start: () => ChildProcessWithoutNullStreams, idleMs = SESSION_IDLE_MS): RefSession {
  const child = start();
  let alive = true;
  let stderr = "";
  let buffered = "";
  let waiter: ((result: TransactionResult) => void) | null = null;
  let expect: string[] = [];
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
  const end = (code: number | null) => {
    if (!alive) return;
    alive = false;
    if (idle !== null) clearTimeout(idle);
    waiter?.({ ok: false, code, stderr });
    waiter = null;
  };
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line === expect[0]) expect.shift();
      if (expect.length === 0 && waiter !== null) {
        const done = waiter;
        waiter = null;
        done({ ok: true });
      }
    }
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  child.stdin.on("error", () => {
    // It ended while being written to: `exit` says how.
  });
  child.on("error", (e) => {
    stderr += String(e);
    end(null);
  });
  child.on("exit", (code) => end(code));
  hold(false);

  const transact = (lines: string) =>
    new Promise<TransactionResult>((resolve) => {
      if (!alive) return resolve({ ok: false, code: null, stderr: "the ref process had ended", unsent: true });
      if (idle !== null) clearTimeout(idle);
      hold(true);
      stderr = "";
      expect = ["start: ok", "prepare: ok", "commit: ok"];
      waiter = (result) => {
        hold(false);
        if (alive) {
          idle = setTimeout(() => {
            // No transaction starts on it from now on: the next write starts a new process.
            alive = false;
            child.stdin.end();
          }, idleMs);
          idle.unref();
        }
        resolve(result);
      };
      child.stdin.write(`start\n${lines}prepare\ncommit\n`);
    });

  return {
    get alive() {
      return alive;
    },
    run(lines) {
      const result = queue.then(() => transact(lines));
      queue = result;
      return result;
    },
  };
}
