/**
 * naruto's ref writes (the named operation `updateRefs`) through long-running `git update-ref
 * --stdin` processes: one per repository, git options, environment (the reflog's identity) and
 * reflog message, each write one transaction (`start`, its lines, `prepare`, `commit`). A mission
 * writes its refs several times an item (every save of its state, every checkpoint, every
 * integration); a process each cost more than the rest of its git.
 *
 * A transaction is what a process per write would do: its compare-and-swap is checked under the
 * ref's lock at `prepare`, from the ref as it is then (git reads it afresh), and when it fails,
 * git ends the process with the message the one-shot command would have printed: the call fails
 * with the same GitError, and the next write starts a new process (git-session.ts: an idle
 * process ends after a while, and never keeps naruto running).
 */
import type { GitCall } from "./run-git.ts";

/** One line of a ref transaction: `update`, `create`, `delete` or `verify`, a ref and object ids. */
export type RefLine =
  | { readonly verb: "update"; readonly ref: string; readonly next: string; readonly expected?: string }
  | { readonly verb: "create"; readonly ref: string; readonly next: string }
  | { readonly verb: "delete"; readonly ref: string; readonly expected?: string }
  | { readonly verb: "verify"; readonly ref: string; readonly expected: string };

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const REF = /^[^\s-][^\s]*$/;

/** Moves `ref` to `next`: from `expected` when given (null: the ref must not exist yet), else from whatever it holds. */
export function refUpdate(ref: string, next: string, expected?: string | null): RefLine {
  if (expected === null) return { verb: "create", ref, next };
  return expected === undefined ? { verb: "update", ref, next } : { verb: "update", ref, next, expected };
}

function lineOf(line: RefLine): string {
  if (!REF.test(line.ref)) throw new RangeError(`not a ref name naruto writes: ${JSON.stringify(line.ref)}`);
  const values = line.verb === "update" ? [line.next, line.expected] : line.verb === "create" ? [line.next] : [line.expected];
  const ids = values.filter((v): v is string => v !== undefined);
  for (const id of ids) if (!OBJECT_ID.test(id)) throw new RangeError(`not an object id: ${JSON.stringify(id)}`);
  return `${[line.verb, line.ref, ...ids].join(" ")}\n`;
}

/**
 * The named operation that writes refs as one transaction (`update-ref --stdin`): all of `lines`
 * or none, each compare-and-swap checked under the ref's lock. `options` are git's own (`-c
 * key=value`) and `message` the reflog's. A long-running process answers it (`start`, the lines,
 * `prepare`, `commit`); a git without transactions there (before 2.27) runs a process per call.
 */
export function updateRefs(cwd: string, lines: readonly RefLine[], options: { message?: string; config?: readonly string[] } = {}): GitCall {
  const body = lines.map(lineOf).join("");
  const args = [
    ...(options.config ?? []).flatMap((c) => ["-c", c]),
    "update-ref",
    ...(options.message === undefined ? [] : ["-m", options.message]),
    "--stdin",
  ];
  return {
    args,
    cwd,
    input: body,
    session: {
      process: args,
      input: `start\n${body}prepare\ncommit\n`,
      answered: transactionAnswered,
      stdout: () => Buffer.alloc(0),
      unsupported: (stderr) => /unknown command: start/.test(stderr),
    },
  };
}

/** Where the answer to a transaction ends in a session's output (null: not yet). */
export function transactionAnswered(out: Buffer): number | null {
  const at = out.indexOf("commit: ok\n");
  return at < 0 ? null : at + "commit: ok\n".length;
}
