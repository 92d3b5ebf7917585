/**
 * The fake's repositories are real bare git repositories. The REST API reads and writes them
 * with git, so a ref moved through `PATCH /git/refs` and one moved by `git push` are the same
 * ref, guarded by the same git locks. Reads go through one `cat-file --batch-command` per
 * repository and objects are written in-process (objects.ts): only ref moves and history
 * walks (compare, merge-base) start a git process.
 */
import { tmpdir } from "node:os";
import { createGit, GitError, gitText, splitNul, type Git } from "../../../src/git/run-git.ts";
import { refUpdate, updateRefs, type RefLine } from "../../../src/git/ref-sessions.ts";
import { startCatFile, type CatFile } from "./cat-file.ts";
import { parseTree, serializeCommit, typeOfMode, writeLooseObject, type Signature, type TreeItem } from "./objects.ts";

export const ZERO_SHA = "0000000000000000000000000000000000000000";

const GIT_ENV = {
  PATH: process.env["PATH"] ?? "/usr/bin:/bin",
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "fake-github",
  GIT_AUTHOR_EMAIL: "fake-github@example.test",
  GIT_COMMITTER_NAME: "fake-github",
  GIT_COMMITTER_EMAIL: "fake-github@example.test",
};

export type Person = Signature;

export interface TreeEntry {
  readonly mode: string;
  readonly type: "blob" | "tree" | "commit";
  readonly sha: string;
  /** Relative to the listed tree. */
  readonly path: string;
  /** Blob size in bytes; absent for trees and submodules. */
  readonly size?: number;
}

export interface CommitObject {
  readonly sha: string;
  readonly tree: string;
  readonly parents: readonly string[];
  readonly author: Person;
  readonly committer: Person;
  readonly message: string;
}

export interface FileChange {
  readonly filename: string;
  readonly status: "added" | "removed" | "modified" | "renamed" | "changed";
  readonly sha: string;
  readonly additions: number;
  readonly deletions: number;
}

export interface RepoGit {
  readonly dir: string;
  run(args: readonly string[], options?: { input?: string | Buffer; env?: Record<string, string> }): Promise<string>;
  /** The object's type, or null when the repository does not have it. */
  objectType(sha: string): Promise<string | null>;
  /** The commit a branch, tag, full ref or sha names, or null. */
  resolveCommit(rev: string): Promise<string | null>;
  /** What a full ref (`refs/heads/main`) points to, or null. */
  readRef(ref: string): Promise<string | null>;
  listRefs(prefix: string): Promise<{ ref: string; sha: string; type: string }[]>;
  /**
   * Compare-and-swap: moves `ref` to `next` only if it is at `expected` now (ZERO_SHA: only if
   * it does not exist; null: whatever it is). Returns false when the ref was elsewhere.
   */
  updateRef(ref: string, next: string, expected: string | null): Promise<boolean>;
  deleteRef(ref: string): Promise<boolean>;
  isAncestor(ancestor: string, descendant: string): Promise<boolean>;
  mergeBase(a: string, b: string): Promise<string | null>;
  countCommits(range: string): Promise<number>;
  revList(range: string): Promise<string[]>;
  writeObject(type: "blob" | "tree" | "commit", content: Buffer): Promise<string>;
  writeBlob(content: Buffer): Promise<string>;
  writeCommit(input: { tree: string; parents: readonly string[]; author: Person; committer: Person; message: string }): Promise<string>;
  readBlob(sha: string): Promise<Buffer>;
  /** The raw items of a tree (or of a commit's tree), or null when there is none. */
  readTree(treeish: string): Promise<TreeItem[] | null>;
  /** The entries of a tree (or of a commit's tree), optionally of all its subtrees too. */
  lsTree(treeish: string, options?: { recursive?: boolean }): Promise<TreeEntry[]>;
  /** The entry at `path` inside a tree or commit, or null. */
  entryAt(treeish: string, path: string): Promise<TreeEntry | null>;
  readCommit(sha: string): Promise<CommitObject | null>;
  diff(base: string, head: string): Promise<FileChange[]>;
  close(): void;
}

function parsePerson(line: string): Person {
  const m = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (m === null) return { name: line, email: "", date: new Date(0).toISOString() };
  return { name: m[1] ?? "", email: m[2] ?? "", date: new Date(Number(m[3]) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z") };
}

export function parseCommit(sha: string, text: string): CommitObject {
  const split = text.indexOf("\n\n");
  const headers = (split === -1 ? text : text.slice(0, split)).split("\n");
  const parents: string[] = [];
  const fields: Record<string, string> = {};
  for (const line of headers) {
    const space = line.indexOf(" ");
    const key = line.slice(0, space);
    if (key === "parent") parents.push(line.slice(space + 1));
    else fields[key] ??= line.slice(space + 1);
  }
  return {
    sha,
    tree: fields["tree"] ?? "",
    parents,
    author: parsePerson(fields["author"] ?? ""),
    committer: parsePerson(fields["committer"] ?? ""),
    message: split === -1 ? "" : text.slice(split + 2),
  };
}

const STATUS: Record<string, FileChange["status"]> = { A: "added", D: "removed", M: "modified", R: "renamed", T: "changed" };

/** Parses `diff-tree --raw -z` and `--numstat -z` output into GitHub's file changes. */
function parseDiff(raw: Buffer, numstat: Buffer): FileChange[] {
  const counts = new Map<string, [number, number]>();
  for (const field of splitNul(numstat)) {
    const [add = "0", del = "0", path] = field.split("\t");
    if (path !== undefined) counts.set(path, [Number(add) || 0, Number(del) || 0]);
  }
  const fields = splitNul(raw);
  const changes: FileChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = (fields[i] ?? "").split(" ");
    const path = fields[i + 1] ?? "";
    const letter = (meta[4] ?? "M").charAt(0);
    const [additions, deletions] = counts.get(path) ?? [0, 0];
    changes.push({ filename: path, status: STATUS[letter] ?? "modified", sha: letter === "D" ? ZERO_SHA : (meta[3] ?? ZERO_SHA), additions, deletions });
  }
  return changes;
}

export function repoGit(dir: string): RepoGit {
  const git: Git = createGit({ env: GIT_ENV });
  const cat: CatFile = startCatFile(dir, GIT_ENV);
  const run: RepoGit["run"] = (args, options = {}) =>
    gitText(git, {
      args: ["-c", "core.filesRefLockTimeout=5000", ...args],
      cwd: dir,
      ...(options.input !== undefined ? { input: options.input } : {}),
      ...(options.env !== undefined ? { env: options.env } : {}),
    });
  const attempt = async (args: readonly string[]): Promise<string | null> => {
    try {
      return await run(args);
    } catch (error) {
      if (error instanceof GitError) return null;
      throw error;
    }
  };
  /** A ref transaction through the repository's long-running `update-ref` (updateRefs); false when git (or the names) refuse it. */
  const writeRefs = async (lines: RefLine[], message?: string): Promise<boolean> => {
    try {
      await git(updateRefs(dir, lines, { config: ["core.filesRefLockTimeout=5000"], ...(message === undefined ? {} : { message }) }));
      return true;
    } catch (error) {
      // RangeError: not a ref name or object id git would take (git refuses those as well).
      if (error instanceof GitError || error instanceof RangeError) return false;
      throw error;
    }
  };
  const safeRev = (rev: string) => rev !== "" && !rev.startsWith("-") && !/[\s\0]/.test(rev);
  const readCommit = async (sha: string): Promise<CommitObject | null> => {
    const object = /^[0-9a-f]{40}$/.test(sha) ? await cat.contents(sha) : null;
    return object?.type === "commit" ? parseCommit(sha, object.content.toString("utf8")) : null;
  };
  const treeItems = async (treeish: string) => {
    const object = safeRev(treeish) ? await cat.contents(`${treeish}^{tree}`) : null;
    return object === null ? null : parseTree(object.content);
  };
  const entryOf = async (item: { mode: string; name: string; sha: string }, path: string): Promise<TreeEntry> => {
    const type = typeOfMode(item.mode);
    const entry = { mode: item.mode, type, sha: item.sha, path };
    return type === "blob" ? { ...entry, size: (await cat.info(item.sha))?.size ?? 0 } : entry;
  };
  const self: RepoGit = {
    dir,
    run,
    objectType: async (sha) => (/^[0-9a-f]{40}$/.test(sha) ? ((await cat.info(sha))?.type ?? null) : null),
    resolveCommit: async (rev) => {
      if (!safeRev(rev)) return null;
      for (const candidate of [`refs/heads/${rev}`, `refs/tags/${rev}`, rev]) {
        const found = await cat.info(`${candidate}^{commit}`);
        if (found !== null) return found.sha;
      }
      return null;
    },
    readRef: async (ref) => (ref.startsWith("refs/") && safeRev(ref) ? ((await cat.info(ref))?.sha ?? null) : null),
    listRefs: async (prefix) => {
      const out = await run(["for-each-ref", "--format=%(refname)%00%(objectname)%00%(objecttype)"]);
      return out
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => {
          const [ref = "", sha = "", type = ""] = line.split("\0");
          return { ref, sha, type };
        })
        .filter((r) => r.ref.startsWith(prefix));
    },
    updateRef: async (ref, next, expected) => writeRefs([refUpdate(ref, next, expected ?? undefined)], "fake-github"),
    deleteRef: async (ref) => writeRefs([{ verb: "delete", ref }]),
    isAncestor: async (ancestor, descendant) => {
      // Walk back from the descendant in-process; compare-and-swap histories are short.
      const seen = new Set<string>();
      const queue = [descendant];
      while (queue.length > 0 && seen.size < 2000) {
        const sha = queue.shift() ?? "";
        if (sha === ancestor) return true;
        if (seen.has(sha)) continue;
        seen.add(sha);
        queue.push(...((await readCommit(sha))?.parents ?? []));
      }
      return queue.length > 0 && (await attempt(["merge-base", "--is-ancestor", ancestor, descendant])) !== null;
    },
    mergeBase: (a, b) => attempt(["merge-base", a, b]),
    countCommits: async (range) => Number(await run(["rev-list", "--count", range])),
    revList: async (range) => (await run(["rev-list", "--reverse", range])).split("\n").filter((s) => s !== ""),
    writeObject: (type, content) => writeLooseObject(dir, type, content),
    writeBlob: (content) => writeLooseObject(dir, "blob", content),
    writeCommit: (input) => writeLooseObject(dir, "commit", serializeCommit(input)),
    readBlob: async (sha) => {
      const object = await cat.contents(sha);
      if (object?.type !== "blob") throw new Error(`${sha} is not a blob in ${dir}`);
      return object.content;
    },
    readTree: treeItems,
    lsTree: async (treeish, options = {}) => {
      const items = await treeItems(treeish);
      if (items === null) return [];
      const entries: TreeEntry[] = [];
      for (const item of items) {
        const entry = await entryOf(item, item.name);
        entries.push(entry);
        if (options.recursive === true && entry.type === "tree") {
          for (const child of await self.lsTree(item.sha, options)) entries.push({ ...child, path: `${item.name}/${child.path}` });
        }
      }
      return entries;
    },
    entryAt: async (treeish, path) => {
      const parts = path.split("/").filter((p) => p !== "");
      let items = await treeItems(treeish);
      for (const [i, part] of parts.entries()) {
        const item = items?.find((it) => it.name === part);
        if (item === undefined) return null;
        if (i === parts.length - 1) return entryOf(item, parts.join("/"));
        items = typeOfMode(item.mode) === "tree" ? await treeItems(item.sha) : null;
      }
      return null;
    },
    readCommit,
    diff: async (base, head) => {
      const { stdout: raw } = await git({ args: ["diff-tree", "-r", "-z", "--raw", "--no-renames", base, head], cwd: dir });
      const { stdout: numstat } = await git({ args: ["diff-tree", "-r", "-z", "--numstat", "--no-renames", base, head], cwd: dir });
      return parseDiff(raw, numstat);
    },
    close: () => cat.close(),
  };
  return self;
}

/** One RepoGit (and so one cat-file process) per repository for the server's lifetime. */
export interface GitPool {
  get(dir: string): RepoGit;
  close(): void;
}

export function createGitPool(): GitPool {
  const open = new Map<string, RepoGit>();
  return {
    get: (dir) => {
      let git = open.get(dir);
      if (git === undefined) {
        git = repoGit(dir);
        open.set(dir, git);
      }
      return git;
    },
    close: () => {
      for (const git of open.values()) git.close();
      open.clear();
    },
  };
}
