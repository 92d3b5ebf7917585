/**
 * The fake's repositories are real bare git repositories. The REST API reads and writes them
 * with git plumbing, so a ref moved through `PATCH /git/refs` and one moved by `git push`
 * are the same ref, guarded by the same git locks.
 */
import { tmpdir } from "node:os";
import { createGit, GitError, gitText, splitNul, type Git } from "../../../src/git/run-git.ts";

export const ZERO_SHA = "0000000000000000000000000000000000000000";

/** git for the fake: no global or system config, and a fixed identity unless a call gives one. */
export function fakeGit(): Git {
  return createGit({
    env: {
      PATH: process.env["PATH"],
      HOME: tmpdir(),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "fake-github",
      GIT_AUTHOR_EMAIL: "fake-github@example.test",
      GIT_COMMITTER_NAME: "fake-github",
      GIT_COMMITTER_EMAIL: "fake-github@example.test",
    },
  });
}

export interface Person {
  readonly name: string;
  readonly email: string;
  /** ISO 8601. */
  readonly date: string;
}

export interface TreeEntry {
  readonly mode: string;
  readonly type: "blob" | "tree" | "commit";
  readonly sha: string;
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
  readonly previousFilename?: string;
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
  writeBlob(content: Buffer): Promise<string>;
  readBlob(sha: string): Promise<Buffer>;
  lsTree(treeish: string, options?: { recursive?: boolean; path?: string }): Promise<TreeEntry[]>;
  readCommit(sha: string): Promise<CommitObject | null>;
  diff(base: string, head: string): Promise<FileChange[]>;
}

function parsePerson(line: string): Person {
  const m = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (m === null) return { name: line, email: "", date: new Date(0).toISOString() };
  return { name: m[1] ?? "", email: m[2] ?? "", date: new Date(Number(m[3]) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z") };
}

function parseCommit(sha: string, text: string): CommitObject {
  const split = text.indexOf("\n\n");
  const headers = (split === -1 ? text : text.slice(0, split)).split("\n");
  const message = split === -1 ? "" : text.slice(split + 2);
  let tree = "";
  const parents: string[] = [];
  let author = parsePerson("");
  let committer = author;
  for (const line of headers) {
    const space = line.indexOf(" ");
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === "tree") tree = value;
    else if (key === "parent") parents.push(value);
    else if (key === "author") author = parsePerson(value);
    else if (key === "committer") committer = parsePerson(value);
  }
  return { sha, tree, parents, author, committer, message };
}

const STATUS: Record<string, FileChange["status"]> = { A: "added", D: "removed", M: "modified", R: "renamed", T: "changed" };

export function repoGit(dir: string, git: Git = fakeGit()): RepoGit {
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
  const self: RepoGit = {
    dir,
    run,
    objectType: (sha) => (/^[0-9a-f]{40}$/.test(sha) ? attempt(["cat-file", "-t", sha]) : Promise.resolve(null)),
    resolveCommit: async (rev) => {
      if (rev.startsWith("-")) return null;
      for (const candidate of [`refs/heads/${rev}`, `refs/tags/${rev}`, rev]) {
        const sha = await attempt(["rev-parse", "--verify", "-q", `${candidate}^{commit}`]);
        if (sha !== null) return sha;
      }
      return null;
    },
    readRef: (ref) => attempt(["rev-parse", "--verify", "-q", ref]),
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
    updateRef: async (ref, next, expected) =>
      (await attempt(["update-ref", "-m", "fake-github", ref, next, ...(expected === null ? [] : [expected])])) !== null,
    deleteRef: async (ref) => (await attempt(["update-ref", "-d", ref])) !== null,
    isAncestor: async (a, b) => (await attempt(["merge-base", "--is-ancestor", a, b])) !== null,
    mergeBase: (a, b) => attempt(["merge-base", a, b]),
    countCommits: async (range) => Number(await run(["rev-list", "--count", range])),
    revList: async (range) => (await run(["rev-list", "--reverse", range])).split("\n").filter((s) => s !== ""),
    writeBlob: (content) => run(["hash-object", "-w", "--stdin"], { input: content }),
    readBlob: async (sha) => (await git({ args: ["cat-file", "blob", sha], cwd: dir })).stdout,
    lsTree: async (treeish, options = {}) => {
      const args = ["ls-tree", "-z", "-l", ...(options.recursive === true ? ["-r", "-t"] : []), treeish];
      if (options.path !== undefined) args.push("--", options.path);
      const { stdout } = await git({ args, cwd: dir });
      return splitNul(stdout).map((line) => {
        const tab = line.indexOf("\t");
        const [mode = "", type = "", sha = "", size = "-"] = line.slice(0, tab).split(/ +/);
        const entry = { mode, type: type as TreeEntry["type"], sha, path: line.slice(tab + 1) };
        return size === "-" ? entry : { ...entry, size: Number(size) };
      });
    },
    readCommit: async (sha) => {
      if ((await self.objectType(sha)) !== "commit") return null;
      return parseCommit(sha, await run(["cat-file", "commit", sha]));
    },
    diff: async (base, head) => {
      const { stdout: status } = await git({ args: ["diff-tree", "-r", "-z", "--raw", "--no-renames", base, head], cwd: dir });
      const { stdout: numstat } = await git({ args: ["diff-tree", "-r", "-z", "--numstat", "--no-renames", base, head], cwd: dir });
      const counts = new Map<string, [number, number]>();
      const nums = splitNul(numstat);
      for (const field of nums) {
        const [add = "0", del = "0", path] = field.split("\t");
        if (path !== undefined) counts.set(path, [Number(add) || 0, Number(del) || 0]);
      }
      const fields = splitNul(status);
      const changes: FileChange[] = [];
      for (let i = 0; i + 1 < fields.length; i += 2) {
        const meta = (fields[i] ?? "").split(" ");
        const path = fields[i + 1] ?? "";
        const letter = (meta[4] ?? "M").charAt(0);
        const [additions, deletions] = counts.get(path) ?? [0, 0];
        const sha = letter === "D" ? ZERO_SHA : (meta[3] ?? ZERO_SHA);
        changes.push({ filename: path, status: STATUS[letter] ?? "modified", sha, additions, deletions });
      }
      return changes;
    },
  };
  return self;
}
