/**
 * Writes a chain of commits with ONE `git fast-import` process, whatever the chain's length:
 * this is what makes the queue's fast path cost a constant number of git processes per batch.
 * Changes name blobs that already exist (`M <mode> <oid> <path>`), so no content is re-sent.
 */
import { randomBytes } from "node:crypto";
import type { Git } from "./run-git.ts";
import { GitParseError } from "./parse-objects.ts";
import type { PathChange, RawPath } from "./tree-model.ts";

export interface ImportCommit {
  /** Raw `Name <email> <epoch> <tz>` header values (`--date-format=raw`). */
  readonly author: string;
  readonly committer: string;
  readonly encoding: string | null;
  /** Raw message bytes (latin1 text), written exactly: no newline added or removed. */
  readonly message: string;
  readonly changes: readonly PathChange[];
}

/**
 * fast-import's path syntax: always C-quoted, so spaces, quotes, newlines and a leading `"`
 * survive. Bytes ≥ 0x80 stay raw (fast-import copies them as they are).
 */
export function quotePath(path: RawPath): string {
  let out = '"';
  for (const ch of path) {
    const code = ch.charCodeAt(0);
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (code < 0x20 || code === 0x7f) out += `\\${code.toString(8).padStart(3, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * The stream for a chain on top of `from`. Commits go to `ref`, which is reset (to nothing) at
 * the end so that fast-import never creates it; the commit ids come back through `get-mark`.
 */
export function formatFastImport(input: { ref: string; from: string; commits: readonly ImportCommit[] }): Buffer {
  const parts: string[] = ["feature done\n"];
  input.commits.forEach((c, i) => {
    parts.push(`commit ${input.ref}\nmark :${i + 1}\n`);
    parts.push(`author ${c.author}\ncommitter ${c.committer}\n`);
    if (c.encoding !== null) parts.push(`encoding ${c.encoding}\n`);
    parts.push(`data ${c.message.length}\n${c.message}\n`);
    parts.push(`from ${i === 0 ? input.from : `:${i}`}\n`);
    // Deletions first: `M a/b` after `D a` is right, `D a` after `M a/b` would drop the new file.
    for (const ch of c.changes) if (ch.after === null) parts.push(`D ${quotePath(ch.path)}\n`);
    for (const ch of c.changes) {
      if (ch.after !== null) parts.push(`M ${ch.after.mode} ${ch.after.oid} ${quotePath(ch.path)}\n`);
    }
    parts.push("\n");
  });
  input.commits.forEach((_, i) => parts.push(`get-mark :${i + 1}\n`));
  parts.push(`reset ${input.ref}\n\ndone\n`);
  return Buffer.from(parts.join(""), "latin1");
}

/**
 * Writes the commits and returns their ids in order. No ref is created or moved: the caller
 * moves the queue ref (by compare-and-swap) once the chain is verified.
 */
export async function runFastImport(input: {
  git: Git;
  repoDir: string;
  from: string;
  commits: readonly ImportCommit[];
}): Promise<string[]> {
  if (input.commits.length === 0) return [];
  const ref = `refs/naruto/fast-import/${randomBytes(8).toString("hex")}`;
  const stream = formatFastImport({ ref, from: input.from, commits: input.commits });
  const { stdout } = await input.git({
    args: ["fast-import", "--quiet", "--date-format=raw", "--done"],
    cwd: input.repoDir,
    input: stream,
  });
  const ids = stdout.toString("latin1").split("\n").filter((l) => l !== "");
  if (ids.length !== input.commits.length || !ids.every((id) => /^[0-9a-f]{40,64}$/.test(id))) {
    throw new GitParseError(`fast-import returned ${ids.length} commit ids for ${input.commits.length} commits`);
  }
  return ids;
}
