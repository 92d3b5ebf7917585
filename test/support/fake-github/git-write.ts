/**
 * Writing trees and commits the way the Git Data API does: a tree from a base tree plus
 * changed entries (deep paths create or replace subtrees; `sha: null` deletes), a commit from
 * a tree and parents. Objects are built in-process and stored as loose objects.
 */
import type { Person, RepoGit } from "./git-store.ts";
import { serializeTree, typeOfMode, type TreeItem } from "./objects.ts";

export interface NewTreeEntry {
  readonly path: string;
  readonly mode: "100644" | "100755" | "040000" | "160000" | "120000";
  readonly type: "blob" | "tree" | "commit";
  /** null deletes the path (only meaningful with a base tree). */
  readonly sha?: string | null;
  readonly content?: string;
}

/** Why a tree or commit cannot be written, in words GitHub would use for a 422. */
export class GitWriteError extends Error {
  override readonly name = "GitWriteError";
}

/** A directory being edited: its entries are either final items or directories opened for editing. */
interface Dir {
  readonly entries: Map<string, TreeItem | Dir>;
}

const isDir = (node: TreeItem | Dir): node is Dir => "entries" in node;

async function loadDir(git: RepoGit, sha: string | null): Promise<Dir> {
  if (sha === null) return { entries: new Map() };
  return { entries: new Map(((await git.readTree(sha)) ?? []).map((item) => [item.name, item])) };
}

async function checkEntry(git: RepoGit, entry: NewTreeEntry): Promise<string> {
  if (typeOfMode(entry.mode) !== entry.type) throw new GitWriteError(`tree.mode ${entry.mode} does not fit tree.type ${entry.type}`);
  if (entry.sha !== undefined && entry.sha !== null && entry.content !== undefined) {
    throw new GitWriteError("tree.sha and tree.content cannot both be given");
  }
  if (entry.sha === undefined || entry.sha === null) {
    if (entry.type !== "blob") throw new GitWriteError(`tree.sha is required for a ${entry.type} entry`);
    return git.writeBlob(Buffer.from(entry.content ?? "", "utf8"));
  }
  if (entry.type !== "commit" && (await git.objectType(entry.sha)) !== entry.type) {
    throw new GitWriteError(`tree.sha ${entry.sha} is not a valid ${entry.type}`);
  }
  return entry.sha;
}

async function writeDir(git: RepoGit, dir: Dir): Promise<string | null> {
  const items: TreeItem[] = [];
  for (const [name, node] of dir.entries) {
    if (!isDir(node)) {
      items.push({ ...node, name });
      continue;
    }
    const sha = await writeDir(git, node);
    // git stores no empty directories.
    if (sha !== null) items.push({ mode: "040000", name, sha });
  }
  return items.length === 0 ? null : git.writeObject("tree", serializeTree(items));
}

/** Builds a tree: the base tree's entries (if any) with `entries` applied on top. */
export async function createTree(git: RepoGit, input: { baseTree?: string; entries: readonly NewTreeEntry[] }): Promise<string> {
  if (input.baseTree !== undefined && (await git.objectType(input.baseTree)) !== "tree") {
    throw new GitWriteError("base_tree is not a valid tree oid");
  }
  const root = await loadDir(git, input.baseTree ?? null);
  for (const entry of input.entries) {
    const parts = entry.path.split("/").filter((p) => p !== "");
    if (parts.length === 0 || parts.some((part) => part === "." || part === ".." || part === ".git")) {
      throw new GitWriteError(`tree.path contains a malformed path component: ${entry.path}`);
    }
    const sha = entry.sha === null ? null : await checkEntry(git, entry);
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      const node = dir.entries.get(part);
      let next: Dir;
      if (node !== undefined && isDir(node)) next = node;
      else next = await loadDir(git, node !== undefined && typeOfMode(node.mode) === "tree" ? node.sha : null);
      dir.entries.set(part, next);
      dir = next;
    }
    const name = parts.at(-1) ?? "";
    if (sha === null) dir.entries.delete(name);
    else dir.entries.set(name, { mode: entry.mode, name, sha });
  }
  return (await writeDir(git, root)) ?? (await git.writeObject("tree", Buffer.alloc(0)));
}

/** Writes a commit object; the message is stored exactly as given. */
export async function createCommit(
  git: RepoGit,
  input: { tree: string; parents: readonly string[]; message: string; author: Person; committer: Person },
): Promise<string> {
  if ((await git.objectType(input.tree)) !== "tree") throw new GitWriteError(`Tree SHA does not exist: ${input.tree}`);
  for (const parent of input.parents) {
    if ((await git.objectType(parent)) !== "commit") {
      throw new GitWriteError(`Parent SHA does not exist or is not a commit object: ${parent}`);
    }
  }
  return git.writeCommit(input);
}
