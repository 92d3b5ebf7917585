/**
 * Writing trees and commits into a bare repository the way the Git Data API does: a tree from
 * a base tree plus changed entries, a commit from a tree and parents. A throwaway index file
 * does the tree work, so no work tree is ever needed.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ZERO_SHA, type Person, type RepoGit } from "./git-store.ts";

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

/** Builds a tree: the base tree's entries (if any) with `entries` applied on top. */
export async function createTree(git: RepoGit, input: { baseTree?: string; entries: readonly NewTreeEntry[] }): Promise<string> {
  if (input.baseTree !== undefined && (await git.objectType(input.baseTree)) !== "tree") {
    throw new GitWriteError("base_tree is not a valid tree oid");
  }
  const scratch = await mkdtemp(join(tmpdir(), "fake-github-index-"));
  const env = { GIT_INDEX_FILE: join(scratch, "index") };
  const git2 = (args: readonly string[], input2?: string) =>
    git.run(args, { env, ...(input2 !== undefined ? { input: input2 } : {}) });
  try {
    await git2(input.baseTree === undefined ? ["read-tree", "--empty"] : ["read-tree", input.baseTree]);
    const existing = (await git2(["ls-files", "-z"])).split("\0").filter((p) => p !== "");
    const records: string[] = [];
    const subtrees: { path: string; sha: string }[] = [];
    for (const entry of input.entries) {
      const path = entry.path.replace(/^\/+|\/+$/g, "");
      if (path === "" || path.split("/").some((part) => part === "." || part === ".." || part === ".git")) {
        throw new GitWriteError(`tree.path contains a malformed path component: ${entry.path}`);
      }
      // Whatever was at the path, file or directory, is replaced.
      for (const old of existing) {
        if (old === path || old.startsWith(`${path}/`)) records.push(`0 ${ZERO_SHA}\t${old}`);
      }
      if (entry.sha === null) continue;
      if (entry.sha !== undefined && entry.content !== undefined) {
        throw new GitWriteError("tree.sha and tree.content cannot both be given");
      }
      let sha = entry.sha;
      if (sha === undefined) {
        if (entry.type !== "blob") throw new GitWriteError(`tree.sha is required for a ${entry.type} entry`);
        sha = await git.writeBlob(Buffer.from(entry.content ?? "", "utf8"));
      } else if (entry.type !== "commit" && (await git.objectType(sha)) !== entry.type) {
        throw new GitWriteError(`tree.sha ${sha} is not a valid ${entry.type}`);
      }
      if (entry.type === "tree") subtrees.push({ path, sha });
      else records.push(`${entry.mode} ${sha}\t${path}`);
    }
    if (records.length > 0) await git2(["update-index", "-z", "--index-info"], records.map((r) => `${r}\0`).join(""));
    for (const subtree of subtrees) await git2(["read-tree", `--prefix=${subtree.path}/`, subtree.sha]);
    return await git2(["write-tree"]);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function gitDate(iso: string): string {
  return `@${Math.floor(Date.parse(iso) / 1000)} +0000`;
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
  return git.run(["commit-tree", input.tree, ...input.parents.flatMap((p) => ["-p", p])], {
    input: input.message,
    env: {
      GIT_AUTHOR_NAME: input.author.name,
      GIT_AUTHOR_EMAIL: input.author.email,
      GIT_AUTHOR_DATE: gitDate(input.author.date),
      GIT_COMMITTER_NAME: input.committer.name,
      GIT_COMMITTER_EMAIL: input.committer.email,
      GIT_COMMITTER_DATE: gitDate(input.committer.date),
    },
  });
}
