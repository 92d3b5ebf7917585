/**
 * The queue's commits written by naruto itself: the chain `git fast-import` writes
 * (fast-import.ts), byte for byte, as loose objects (loose-objects.ts), without starting a
 * process, where fast-import would have written loose objects too: a chain of fewer than 100
 * new objects (a batch of one checkpoint otherwise started two processes, `fast-import` and the
 * `unpack-objects` it runs for so small a pack). A longer chain is fast-import's: one pack.
 *
 * The trees along the changed paths are read through the repository's long-running
 * `cat-file --batch` (cat-file-session.ts) and changed in memory as fast-import changes its own
 * (fast-import.c `tree_content_set`, `tree_content_remove`): a commit's deletions, then its
 * modifications; a folder a deletion leaves empty goes, a file in the way of a folder is replaced
 * by it, a modification to what is already there changes nothing. Changed trees are written in
 * git's order, with their modes as fast-import writes them (octal, no leading zero).
 *
 * Only in a SHA-1 repository, and only for what fast-import takes as it is: the modes `M` takes,
 * idents with a raw date, paths without empty components, files naming blobs the repository
 * holds, trees that parse without a name twice. For anything else {@link writeChain} answers
 * null and the caller runs fast-import, which then decides (and refuses what it refuses).
 */
import { parseTree } from "../gate/index.ts";
import type { ImportCommit } from "../git/index.ts";
import { looseObjectId, startLooseObject } from "../git/index.ts";
import { parseCatFileBatch, parseCommit } from "../git/index.ts";
import type { Git } from "../git/index.ts";

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
/** What fast-import's `M` takes (file, executable, symlink, gitlink); a tree is never set by a change here. */
const SETTABLE = new Set([0o100644, 0o100755, 0o120000, 0o160000]);
/** fast-import's `parse_ident` and `validate_raw_date` (strict): a name, `<email>`, seconds, a zone up to 1400. */
const IDENT = /^[^<>\n\0]+ <[^<>\n\0]*> ([0-9]{1,15}) [+-]([0-9]{1,4})$/;
const OID = /^[0-9a-f]{40}$/;
/**
 * fast-import's own line (`fastimport.unpackLimit`, 100 by default): fewer objects it writes as
 * loose objects, as naruto does; from this many on it keeps its pack, and so the chain is its.
 * A hundred loose objects cost a hundred files; a pack, two.
 */
const UNPACK_LIMIT = 100;

interface Entry {
  readonly mode: number;
  readonly oid: string;
  /** The folder, once read or changed. */
  readonly node?: Folder;
}

interface Folder {
  /** Its tree while unchanged; null once changed (written again). */
  oid: string | null;
  /** By name (latin1: one character per byte); null until read. */
  entries: Map<string, Entry> | null;
}

/** Something fast-import would do otherwise, or refuse: leave the chain to it. */
class NotHere extends Error {}

/** Whether fast-import would take the commit as it is (see the header). */
export function writableHere(commit: ImportCommit): boolean {
  const ident = (text: string) => {
    const m = IDENT.exec(text);
    return m !== null && Number(m[2]) <= 1400;
  };
  if (!ident(commit.author) || !ident(commit.committer)) return false;
  if (commit.encoding !== null && /[\n\0]/.test(commit.encoding)) return false;
  return commit.changes.every((c) => {
    if (c.path === "" || c.path.includes("\0") || c.path.split("/").includes("")) return false;
    return c.after === null || (SETTABLE.has(parseInt(c.after.mode, 8)) && /^[0-7]+$/.test(c.after.mode) && OID.test(c.after.oid));
  });
}

/**
 * Writes the chain on top of commit `from` into the loose objects of `objectsDir` (the
 * repository's, SHA-1) and returns the commit ids in order, as `runFastImport` would; null when
 * fast-import must write it (see the header). Every object is written when it returns.
 */
export async function writeChain(input: { git: Git; repoDir: string; objectsDir: string; from: string; commits: readonly ImportCommit[] }): Promise<string[] | null> {
  // Each commit that changes anything brings itself and a root tree: a chain this long is fast-import's.
  if (input.commits.length * 2 >= UNPACK_LIMIT) return null;
  if (!OID.test(input.from) || !input.commits.every(writableHere)) return null;
  if (!(await allBlobs(input.git, input.repoDir, input.commits))) return null;
  const read = objectReader(input.git, input.repoDir);
  try {
    const [commit = ""] = await read([input.from], "commit");
    const root: Folder = { oid: parseCommit(commit).tree, entries: null };
    // The folders the chain's paths cross, a level at a time: one read per level, whatever the batch.
    await readAlong(root, input.commits.flatMap((c) => c.changes.map((ch) => ch.path.split("/"))), read);
    const load = async (folder: Folder): Promise<Map<string, Entry>> => (folder.entries ??= folder.oid === null ? new Map() : parseEntries((await read([folder.oid], "tree"))[0] ?? ""));
    // Made in memory first: a chain of many objects is fast-import's, which packs them.
    const objects = new Map<string, { type: "tree" | "commit"; content: Buffer }>();
    const write = (type: "tree" | "commit", content: Buffer): string => {
      const id = looseObjectId(type, content);
      objects.set(id, { type, content });
      return id;
    };
    const ids: string[] = [];
    let parent = input.from;
    for (const commit of input.commits) {
      for (const c of commit.changes) if (c.after === null) await remove(root, c.path.split("/"), load);
      for (const c of commit.changes) if (c.after !== null) await set(root, c.path.split("/"), { mode: parseInt(c.after.mode, 8), oid: c.after.oid }, load);
      const tree = writeFolder(root, write);
      const head = [`tree ${tree}`, `parent ${parent}`, `author ${commit.author}`, `committer ${commit.committer}`, ...(commit.encoding === null ? [] : [`encoding ${commit.encoding}`])];
      parent = write("commit", Buffer.from(`${head.join("\n")}\n\n${commit.message}`, "latin1"));
      ids.push(parent);
      if (objects.size >= UNPACK_LIMIT) return null;
    }
    const writes = [...objects.values()].map((o) => startLooseObject(input.objectsDir, o.type, o.content).written);
    await Promise.all(writes);
    return ids;
  } catch (error) {
    if (error instanceof NotHere) return null;
    throw error;
  }
}

/** Removes `path`; a folder it leaves empty goes too. Answers whether `folder` changed. */
async function remove(folder: Folder, path: readonly string[], load: (f: Folder) => Promise<Map<string, Entry>>): Promise<boolean> {
  const [name = "", ...rest] = path;
  const entries = await load(folder);
  const entry = entries.get(name);
  if (entry === undefined) return false;
  if (rest.length > 0) {
    // A file where the path's folder would be: the path is not there, but fast-import answers
    // "removed" all the same, and the folder above (not this one) is written again.
    if (!isFolder(entry.mode)) return true;
    const child = entry.node ?? { oid: entry.oid, entries: null };
    if (!(await remove(child, rest, load))) return false;
    if ((await load(child)).size > 0) {
      entries.set(name, { mode: entry.mode, oid: entry.oid, node: child });
      folder.oid = null;
      return true;
    }
  }
  entries.delete(name);
  folder.oid = null;
  return true;
}

/** Sets `path` to `leaf`, making (or turning a file in the way into) folders on the way. */
async function set(folder: Folder, path: readonly string[], leaf: { mode: number; oid: string }, load: (f: Folder) => Promise<Map<string, Entry>>): Promise<boolean> {
  const [name = "", ...rest] = path;
  const entries = await load(folder);
  const entry = entries.get(name);
  if (rest.length === 0) {
    if (entry !== undefined && entry.mode === leaf.mode && entry.oid === leaf.oid) return false;
    entries.set(name, leaf);
    folder.oid = null;
    return true;
  }
  const child = entry !== undefined && isFolder(entry.mode) ? (entry.node ?? { oid: entry.oid, entries: null }) : { oid: null, entries: new Map<string, Entry>() };
  const changed = await set(child, rest, leaf, load);
  if (entry !== undefined && entry.node === child && !changed) return false;
  entries.set(name, { mode: S_IFDIR, oid: entry !== undefined && isFolder(entry.mode) ? entry.oid : "", node: child });
  if (changed) folder.oid = null;
  return changed;
}

/** The folder's tree id, writing it (and every changed folder under it) when it changed. */
function writeFolder(folder: Folder, write: (type: "tree", content: Buffer) => string): string {
  if (folder.oid !== null) return folder.oid;
  const entries = [...(folder.entries ?? new Map<string, Entry>())].map(([name, e]) => {
    const oid = e.node !== undefined ? writeFolder(e.node, write) : e.oid;
    if (e.node !== undefined) folder.entries?.set(name, { mode: e.mode, oid, node: e.node });
    return { key: isFolder(e.mode) ? `${name}/` : name, name, mode: e.mode, oid };
  });
  entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const content = Buffer.concat(entries.flatMap((e) => [Buffer.from(`${e.mode.toString(8)} ${e.name}\0`, "latin1"), Buffer.from(e.oid, "hex")]));
  folder.oid = write("tree", content);
  return folder.oid;
}

function isFolder(mode: number): boolean {
  return (mode & S_IFMT) === S_IFDIR;
}

/** A tree's entries by name; a tree fast-import would read otherwise (a bad mode, a name twice, cut short) is left to it. */
function parseEntries(content: string): Map<string, Entry> {
  const parsed = parseTree(Buffer.from(content, "latin1"), 20);
  if (!parsed.ok) throw new NotHere(parsed.detail);
  const entries = new Map<string, Entry>();
  for (const e of parsed.entries) {
    const name = e.name.toString("latin1");
    if (entries.has(name) || name === "" || name.includes("/")) throw new NotHere(`a tree with the name ${JSON.stringify(name)} twice or empty`);
    entries.set(name, { mode: parseInt(e.mode, 8), oid: e.oid });
  }
  return entries;
}

/**
 * Whether every file the chain sets names a blob the repository holds, as fast-import checks
 * (a gitlink names another repository's commit): one `cat-file --batch-check`, long-running.
 */
async function allBlobs(git: Git, repoDir: string, commits: readonly ImportCommit[]): Promise<boolean> {
  const blobs = [...new Set(commits.flatMap((c) => c.changes.flatMap((ch) => (ch.after !== null && parseInt(ch.after.mode, 8) !== 0o160000 ? [ch.after.oid] : []))))];
  if (blobs.length === 0) return true;
  const { stdout } = await git({ args: ["--no-optional-locks", "cat-file", "--batch-check"], cwd: repoDir, input: blobs.map((b) => `${b}\n`).join("") });
  const lines = stdout.toString("latin1").split("\n");
  return blobs.every((b, i) => lines[i]?.startsWith(`${b} blob `) === true);
}

/** Reads, level by level, the folders of `folder` that `paths` cross (what the chain will change is then in memory). */
async function readAlong(folder: Folder, paths: readonly (readonly string[])[], read: ObjectReader): Promise<void> {
  let level = [{ folder, paths }];
  while (level.length > 0) {
    const unread = level.filter((l) => l.folder.entries === null && l.folder.oid !== null);
    const contents = await read(unread.map((l) => l.folder.oid ?? ""), "tree");
    unread.forEach((l, i) => (l.folder.entries = parseEntries(contents[i] ?? "")));
    const next: typeof level = [];
    for (const { folder: here, paths: below } of level) {
      const byName = new Map<string, string[][]>();
      for (const [name = "", ...rest] of below) {
        if (rest.length === 0) continue;
        const under = byName.get(name);
        if (under === undefined) byName.set(name, [rest]);
        else under.push(rest);
      }
      for (const [name, rest] of byName) {
        const entry = here.entries?.get(name);
        if (entry === undefined || !isFolder(entry.mode)) continue;
        const child = entry.node ?? { oid: entry.oid, entries: null };
        here.entries?.set(name, { mode: entry.mode, oid: entry.oid, node: child });
        next.push({ folder: child, paths: rest });
      }
    }
    level = next;
  }
}

type ObjectReader = (oids: readonly string[], type: "commit" | "tree") => Promise<string[]>;

/** Reads objects of the expected type (content as latin1 text) through the repository's long-running `cat-file --batch`, one request for all. */
function objectReader(git: Git, repoDir: string): ObjectReader {
  return async (oids, type) => {
    if (oids.length === 0) return [];
    const { stdout } = await git({ args: ["--no-optional-locks", "cat-file", "--batch"], cwd: repoDir, input: oids.map((o) => `${o}\n`).join("") });
    const read = parseCatFileBatch(stdout.toString("latin1"));
    return oids.map((oid, i) => {
      const found = read[i];
      // Missing or not what the chain names: fast-import reports it its own way.
      if (found === undefined || !("oid" in found) || found.oid !== oid || found.type !== type) throw new NotHere(`${oid}: not a ${type} in the repository`);
      return found.content;
    });
  };
}
