/**
 * Parsers for the plumbing output the queue reads. Input is git's bytes held as latin1 text
 * (see `RawPath`), so object contents and paths come back byte for byte.
 */
import type { PathChange, RawPath, TreeEntry } from "./tree-model.ts";

const ABSENT = /^0+$/;

/** git printed something the queue does not understand. */
export class GitParseError extends Error {
  override readonly name = "GitParseError";
}

export interface RawDiffSection {
  /** The commit header `diff-tree --stdin` prints before each commit's changes (null for two trees). */
  readonly header: string | null;
  readonly changes: PathChange[];
}

/**
 * Parses `diff-tree -r --raw -z --no-renames` output: `:<mode> <mode> <oid> <oid> <status>\0<path>\0`
 * records, grouped under the `<commit>\0` headers that `--stdin` adds.
 */
export function parseRawDiff(text: string): RawDiffSection[] {
  const fields = text.split("\0");
  if (fields.at(-1) === "") fields.pop();
  const sections: RawDiffSection[] = [];
  let current: RawDiffSection | undefined;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? "";
    if (!field.startsWith(":")) {
      current = { header: field, changes: [] };
      sections.push(current);
      continue;
    }
    const [oldMode, newMode, oldOid, newOid, status] = field.slice(1).split(" ");
    const path = fields[++i];
    if (!oldMode || !newMode || !oldOid || !newOid || !status || path === undefined || /^[RC]/.test(status)) {
      throw new GitParseError(`unexpected diff-tree record ${JSON.stringify(field)}`);
    }
    if (!current) {
      current = { header: null, changes: [] };
      sections.push(current);
    }
    current.changes.push({
      path,
      before: ABSENT.test(oldMode) ? null : { mode: oldMode, oid: oldOid },
      after: ABSENT.test(newMode) ? null : { mode: newMode, oid: newOid },
    });
  }
  return sections;
}

/** Parses `ls-tree -r -z` output (`<mode> <type> <oid>\t<path>\0`) into path → entry pairs. */
export function parseLsTree(text: string): Array<[RawPath, TreeEntry]> {
  const out: Array<[RawPath, TreeEntry]> = [];
  for (const record of text.split("\0")) {
    if (record === "") continue;
    const tab = record.indexOf("\t");
    const [mode, , oid] = record.slice(0, tab).split(" ");
    if (tab < 0 || !mode || !oid) throw new GitParseError(`unexpected ls-tree record ${JSON.stringify(record)}`);
    out.push([record.slice(tab + 1), { mode, oid }]);
  }
  return out;
}

/** Parses `ls-files -u -z` / `merge-tree -z --name-only` path lists into unique paths. */
export function parseUnmergedPaths(text: string): RawPath[] {
  const paths = text
    .split("\0")
    .filter((r) => r !== "")
    .map((r) => (r.includes("\t") ? r.slice(r.indexOf("\t") + 1) : r));
  return [...new Set(paths)];
}

export interface CatFileObject {
  readonly oid: string;
  readonly type: string;
  /** Content as latin1 text: one character per byte. */
  readonly content: string;
}

/** Parses `cat-file --batch` output. A missing object yields `{ missing: name }`. */
export function parseCatFileBatch(text: string): Array<CatFileObject | { readonly missing: string }> {
  const out: Array<CatFileObject | { readonly missing: string }> = [];
  let at = 0;
  while (at < text.length) {
    const eol = text.indexOf("\n", at);
    if (eol < 0) throw new GitParseError("truncated cat-file output");
    const header = text.slice(at, eol).split(" ");
    if (header.length === 2 && header[1] === "missing") {
      out.push({ missing: header[0] ?? "" });
      at = eol + 1;
      continue;
    }
    const [oid, type, size] = header;
    const length = Number(size);
    if (!oid || !type || !Number.isInteger(length)) throw new GitParseError(`unexpected cat-file header ${JSON.stringify(header.join(" "))}`);
    out.push({ oid, type, content: text.slice(eol + 1, eol + 1 + length) });
    at = eol + 1 + length + 1;
  }
  return out;
}

export interface CommitObject {
  readonly tree: string;
  readonly parents: readonly string[];
  /** Header values as stored (`Name <email> <epoch> <tz>`), raw. */
  readonly author: string;
  readonly committer: string;
  readonly encoding: string | null;
  /** The whole message, raw, trailers included. */
  readonly message: string;
}

/** Parses a commit object's content. Signatures and other extra headers are not kept. */
export function parseCommit(content: string): CommitObject {
  const split = content.indexOf("\n\n");
  const head = split < 0 ? content : content.slice(0, split);
  const message = split < 0 ? "" : content.slice(split + 2);
  let tree = "";
  let author = "";
  let committer = "";
  let encoding: string | null = null;
  const parents: string[] = [];
  for (const line of head.split("\n")) {
    if (line.startsWith(" ")) continue; // continuation of a multi-line header (a signature)
    const space = line.indexOf(" ");
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === "tree") tree = value;
    else if (key === "parent") parents.push(value);
    else if (key === "author") author = value;
    else if (key === "committer") committer = value;
    else if (key === "encoding") encoding = value;
  }
  if (!tree || !author || !committer) throw new GitParseError("commit object without tree, author or committer");
  return { tree, parents, author, committer, encoding, message };
}
