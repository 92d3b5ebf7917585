/**
 * Object reads through a long-running `git cat-file --batch` (git-session.ts): the repository's
 * own reads of commits and records (the queue's checkpoints, the mission store), one process per
 * repository instead of one per read. git looks an object up afresh each time (a pack written
 * since is found: it rescans the packs before it answers "missing"), so a read answers what a
 * new process would.
 */
import type { GitCall } from "./run-git.ts";

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const ARGS = JSON.stringify(["--no-optional-locks", "cat-file", "--batch"]);

/** The object ids a call reads, when it is `--no-optional-locks cat-file --batch` of object ids and nothing else; else null. */
export function catFileRequestOf(call: Pick<GitCall, "args" | "input" | "env" | "okCodes">): readonly string[] | null {
  if (call.env !== undefined || call.okCodes !== undefined || JSON.stringify(call.args) !== ARGS) return null;
  const input = typeof call.input === "string" ? call.input : call.input?.toString("latin1");
  if (input === undefined || !input.endsWith("\n")) return null;
  const ids = input.slice(0, -1).split("\n");
  return ids.every((id) => OBJECT_ID.test(id)) ? ids : null;
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
