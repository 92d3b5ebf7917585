/**
 * naruto's one way to write commits (the queue's chain, a checkpoint, kept work, a mission's
 * saves): `git fast-import`, one long-running process per repository (writeCommits), each chain
 * one request whatever its length (a mission saves its state several times an item: a process
 * per save was most of its git processes). git itself writes the objects, so the repository's
 * own settings hold (`core.sharedRepository`, fsync, compression, the object format), and the
 * same stream gives the same commits in every job that writes it (the Action's publish job
 * rebuilds the queue job's chain and compares the heads). Changes name blobs that already exist
 * (`M <mode> <oid> <path>`), so no content is re-sent, or carry small content of their own
 * (`inline`); a commit may also take a whole tree the repository holds.
 */
import { randomBytes } from "node:crypto";
import type { Git, GitCall } from "./run-git.ts";
import { GitParseError } from "./parse-objects.ts";
import { rawText, type RawPath } from "./tree-model.ts";

/** What a path becomes: a blob or tree the repository holds, new content, or nothing (deleted). */
export type ImportEntry = { readonly mode: string; readonly oid: string } | { readonly mode: string; readonly content: Buffer };

export interface ImportChange {
  /** `""` with mode `040000` and a tree's oid: the commit's whole tree. */
  readonly path: RawPath;
  readonly after: ImportEntry | null;
}

export interface ImportCommit {
  /** Raw `Name <email> <epoch> <tz>` header values (`--date-format=raw`). */
  readonly author: string;
  readonly committer: string;
  readonly encoding: string | null;
  /** Raw message bytes (latin1 text), written exactly: no newline added or removed. */
  readonly message: string;
  /** Changes on the parent's tree (on an empty tree for a root commit, or with `deleteAll`). */
  readonly changes: readonly ImportChange[];
  /** Start from an empty tree rather than the parent's (`deleteall`). */
  readonly deleteAll?: boolean;
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
 * The stream for a chain on top of `from` (null: the first commit has no parent). Commits go to
 * `ref`, which is reset (to nothing) at the end so that fast-import never creates it; the commit
 * ids come back through `get-mark`.
 */
export function formatFastImport(input: { ref: string; from: string | null; commits: readonly ImportCommit[] }): Buffer {
  const parts: string[] = ["feature done\n"];
  input.commits.forEach((c, i) => {
    parts.push(`commit ${input.ref}\nmark :${i + 1}\n`);
    parts.push(`author ${c.author}\ncommitter ${c.committer}\n`);
    if (c.encoding !== null) parts.push(`encoding ${c.encoding}\n`);
    parts.push(`data ${c.message.length}\n${c.message}\n`);
    const from = i === 0 ? input.from : `:${i}`;
    if (from !== null) parts.push(`from ${from}\n`);
    if (c.deleteAll === true) parts.push("deleteall\n");
    // Deletions first: `M a/b` after `D a` is right, `D a` after `M a/b` would drop the new file.
    for (const ch of c.changes) if (ch.after === null) parts.push(`D ${quotePath(ch.path)}\n`);
    for (const ch of c.changes) {
      const after = ch.after;
      if (after === null) continue;
      if ("oid" in after) parts.push(`M ${after.mode} ${after.oid} ${quotePath(ch.path)}\n`);
      else parts.push(`M ${after.mode} inline ${quotePath(ch.path)}\ndata ${after.content.length}\n${after.content.toString("latin1")}\n`);
    }
    parts.push("\n");
  });
  input.commits.forEach((_, i) => parts.push(`get-mark :${i + 1}\n`));
  parts.push(`reset ${input.ref}\n\ndone\n`);
  return Buffer.from(parts.join(""), "latin1");
}

/** The commits of one write: ids come back through `get-mark`, and `ref` is reset at the end, so no ref is left. */
function commitsStream(ref: string, from: string | null, commits: readonly ImportCommit[]): string {
  return formatFastImport({ ref, from, commits })
    .toString("latin1")
    .replace(/^feature done\n/, "")
    .replace(/done\n$/, "");
}

// One ref per naruto process for the long-running fast-import: its writes wait for each other,
// and each ends by resetting it, so the process's table of branches holds this one only.
const SESSION_REF = `refs/naruto/fast-import/${randomBytes(8).toString("hex")}`;
const SESSION_PROCESS: readonly string[] = ["fast-import", "--quiet", "--date-format=raw"];

/**
 * The named operation that writes a chain of commits on top of `from` (null: the first has no
 * parent): its output is the commits' ids, a line each. A long-running `git fast-import` per
 * repository answers it: the same commits, then a `checkpoint` (the objects are on disk, loose
 * when few, as a process of their own leaves them, before the answer comes) and a `progress`
 * line of its own that ends the answer. No ref is created or moved.
 */
export function writeCommits(cwd: string, input: { from: string | null; commits: readonly ImportCommit[] }): GitCall {
  const stream = formatFastImport({ ref: `refs/naruto/fast-import/${randomBytes(8).toString("hex")}`, from: input.from, commits: input.commits });
  const marker = `naruto-end-${randomBytes(12).toString("hex")}`;
  const end = Buffer.from(`progress ${marker}\n`, "latin1");
  const request = Buffer.from(`${commitsStream(SESSION_REF, input.from, input.commits)}checkpoint\n\nprogress ${marker}\n\n`, "latin1");
  return {
    args: ["fast-import", "--quiet", "--date-format=raw", "--done"],
    cwd,
    input: stream,
    session: {
      process: SESSION_PROCESS,
      input: request,
      answered: (out) => {
        const at = out.indexOf(end);
        return at < 0 ? null : at + end.length;
      },
      stdout: (answer) => answer.subarray(0, answer.length - end.length),
    },
  };
}

/**
 * Writes the commits and returns their ids in order. No ref is created or moved: the caller
 * moves the queue ref (by compare-and-swap) once the chain is verified.
 */
export async function runFastImport(input: {
  git: Git;
  repoDir: string;
  /** The first commit's parent; null: it has none. */
  from: string | null;
  commits: readonly ImportCommit[];
}): Promise<string[]> {
  if (input.commits.length === 0) return [];
  const { stdout } = await input.git(writeCommits(input.repoDir, input));
  const ids = stdout
    .toString("latin1")
    .split("\n")
    .filter((l) => l !== "");
  if (ids.length !== input.commits.length || !ids.every((id) => /^[0-9a-f]{40,64}$/.test(id))) {
    throw new GitParseError(`fast-import returned ${ids.length} commit ids for ${input.commits.length} commits`);
  }
  return ids;
}

/** A raw ident header value, as git writes it for `identity` at `at` (whole seconds, UTC). */
export function rawIdent(identity: { readonly name: string; readonly email: string }, at: Date): string {
  return `${rawText(identity.name)} <${rawText(identity.email)}> ${Math.floor(at.getTime() / 1000)} +0000`;
}

/**
 * One commit of a tree the repository holds, on `parent` (null: a root commit), authored and
 * committed by `identity` at `at`: a checkpoint, kept work, a tree made in a temporary index.
 * The message is text; it ends with a newline, as `git commit-tree` would leave it.
 */
export async function writeTreeCommit(input: {
  git: Git;
  repoDir: string;
  tree: string;
  parent: string | null;
  identity: { readonly name: string; readonly email: string };
  at: Date;
  message: string;
}): Promise<string> {
  const who = rawIdent(input.identity, input.at);
  const message = rawText(input.message.endsWith("\n") ? input.message : `${input.message}\n`);
  const commit: ImportCommit = { author: who, committer: who, encoding: null, message, changes: [{ path: "", after: { mode: "040000", oid: input.tree } }] };
  const [id = ""] = await runFastImport({ git: input.git, repoDir: input.repoDir, from: input.parent, commits: [commit] });
  return id;
}
