/**
 * naruto's ref writes through long-running `git update-ref --stdin` processes: one per
 * repository, git options, environment (the reflog's identity) and reflog message, each write
 * one transaction (`start`, its lines, `prepare`, `commit`). A mission writes its refs several
 * times an item (every save of its state, every checkpoint, every integration); a process each
 * cost more than the rest of its git.
 *
 * A transaction is what the one-shot command was: its compare-and-swap is checked under the
 * ref's lock at `prepare`, from the ref as it is then (git reads it afresh), and when it fails,
 * git ends the process with the message the one-shot command would have printed: the call fails
 * with the same GitError, and the next write starts a new process (git-session.ts: an idle
 * process ends after a while, and never keeps naruto running).
 */
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

/** Where the answer to a transaction ends in a session's output (null: not yet). */
export function transactionAnswered(out: Buffer): number | null {
  const at = out.indexOf("commit: ok\n");
  return at < 0 ? null : at + "commit: ok\n".length;
}

/** What a transaction writes to the session: the lines between `start` and `prepare`, `commit`. */
export function transactionInput(transaction: RefTransaction): string {
  return `start\n${transaction.lines}prepare\ncommit\n`;
}
