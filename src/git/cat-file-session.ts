/**
 * Object reads through a long-running `git cat-file --batch` (git-session.ts): the repository's
 * own reads of commits and records (the queue's checkpoints, the mission store), one process per
 * repository instead of one per read; and through a long-running `git cat-file --batch-check`
 * (type and size only: the gate's blobs, the queue's). git looks an object up afresh each time
 * (a pack written since is found: it rescans the packs before it answers "missing"), so a read
 * answers what a new process would.
 */
import { requestLines, type SessionRead } from "./git-session.ts";
import type { GitCall } from "./run-git.ts";

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const ARGS = ["--no-optional-locks", "cat-file", "--batch"];
const CHECK_ARGS = ["--no-optional-locks", "cat-file", "--batch-check"];

/** The object ids a call reads, when it is `--no-optional-locks cat-file --batch` of object ids and nothing else; else null. */
export function catFileRequestOf(call: Pick<GitCall, "args" | "input" | "env" | "okCodes">): readonly string[] | null {
  return requestLines(call, ARGS, OBJECT_ID);
}

/** The call as a read of the long-running process, when it is one (see {@link catFileRequestOf}); else null. */
export function catFileRead(call: Pick<GitCall, "args" | "input" | "env" | "okCodes">): SessionRead | null {
  const ids = catFileRequestOf(call);
  return ids === null ? null : { input: `${ids.join("\n")}\n`, answered: catFileAnswered(ids.length), stdout: (answer) => answer };
}

/** The call as a read of the long-running `cat-file --batch-check` (object ids in, a line each out); else null. */
export function catFileCheckRead(call: Pick<GitCall, "args" | "input" | "env" | "okCodes">): SessionRead | null {
  const ids = requestLines(call, CHECK_ARGS, OBJECT_ID);
  if (ids === null) return null;
  return {
    input: `${ids.join("\n")}\n`,
    answered: (out) => {
      let at = 0;
      for (let answered = 0; answered < ids.length; answered++) {
        const eol = out.indexOf(10, at);
        if (eol < 0) return null;
        at = eol + 1;
      }
      return at;
    },
    stdout: (answer) => answer,
  };
}

/**
 * Where the answers to `count` requests end in `cat-file --batch` output (null: not all there
 * yet): each is `<oid> <type> <size>\n<content>\n` or `<name> missing\n`.
 */
export function catFileAnswered(count: number): (out: Buffer) => number | null {
  return (out) => {
    let at = 0;
    for (let answered = 0; answered < count; answered++) {
      const eol = out.indexOf(10, at);
      if (eol < 0) return null;
      const header = out.toString("latin1", at, eol).split(" ");
      if (header.length === 2) {
        at = eol + 1;
        continue;
      }
      const size = Number(header[2]);
      if (header.length !== 3 || !Number.isInteger(size)) throw new Error(`unexpected cat-file header ${JSON.stringify(header.join(" "))}`);
      at = eol + 1 + size + 1;
      if (at > out.length) return null;
    }
    return at;
  };
}
