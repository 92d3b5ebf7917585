/**
 * Object reads through a long-running `git cat-file --batch` (git-session.ts): the repository's
 * own reads of commits and records (the queue's checkpoints, the mission store), one process per
 * repository instead of one per read; and through a long-running `git cat-file --batch-check`
 * (type and size only: the gate's blobs). git looks an object up afresh each time
 * (a pack written since is found: it rescans the packs before it answers "missing"), so a read
 * answers what a new process would.
 */
import type { GitCall } from "./run-git.ts";

/**
 * The named operation that reads objects (`cat-file --batch`) in the repository at `cwd`: its
 * output is one answer per id, `<oid> <type> <size>\n<content>\n` or `<id> missing\n` (parse it
 * with parseCatFileBatch), from the repository's long-running process.
 */
export function readObjects(cwd: string, ids: readonly string[]): GitCall {
  const args = ["--no-optional-locks", "cat-file", "--batch"];
  const input = ids.map((id) => `${id}\n`).join("");
  return { args, cwd, input, session: { process: args, input, answered: catFileAnswered(ids.length), stdout: (answer) => answer } };
}

/** The named operation that asks the type and size of objects (`cat-file --batch-check`): a line each, from a long-running process. */
export function checkObjects(cwd: string, ids: readonly string[]): GitCall {
  const args = ["--no-optional-locks", "cat-file", "--batch-check"];
  const input = ids.map((id) => `${id}\n`).join("");
  const answered = (out: Buffer): number | null => {
    let at = 0;
    for (let answered = 0; answered < ids.length; answered++) {
      const eol = out.indexOf(10, at);
      if (eol < 0) return null;
      at = eol + 1;
    }
    return at;
  };
  return { args, cwd, input, session: { process: args, input, answered, stdout: (answer) => answer } };
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
