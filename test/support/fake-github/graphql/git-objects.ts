/**
 * `Repository.object`: commits, trees and blobs read from the repository's bare git, as GitHub
 * shows them. A blob's text is cut at 512,000 bytes with `isTruncated` (GitHub's limit), and a
 * blob with a NUL in its first 8,000 bytes is binary (git's own test), with no text.
 */
import type { RepoGit } from "../git-store.ts";
import { FieldError } from "./connection.ts";

/** GitHub gives `Blob.text` up to this many bytes. */
export const BLOB_TEXT_LIMIT = 512_000;

const TYPE: Record<string, string> = { commit: "Commit", tree: "Tree", blob: "Blob" };

/** What `object(oid:)` or `object(expression:)` names; null when the repository has no such object. */
export async function objectOf(git: RepoGit, args: { oid?: string | null; expression?: string | null }): Promise<Record<string, unknown> | null> {
  let sha = args.oid ?? null;
  if (sha === null) {
    const expression = args.expression ?? "";
    // A revision, never an option: GitHub answers null for what it cannot resolve.
    if (expression === "" || expression.startsWith("-")) return null;
    sha = (await git.run(["rev-parse", "--verify", "--quiet", "--end-of-options", expression]).catch(() => "")).trim() || null;
    if (sha === null) return null;
  }
  if (!/^[0-9a-f]{40}$/.test(sha)) throw new FieldError("NOT_FOUND", `Could not resolve to a GitObject with the oid of '${sha}'.`);
  const type = await git.objectType(sha);
  return type === null ? null : gitObject(git, sha, type);
}

function gitObject(git: RepoGit, sha: string, type: string): Record<string, unknown> | null {
  const typename = TYPE[type];
  if (typename === undefined) return null;
  const base = { __typename: typename, oid: sha };
  if (type === "commit") {
    return {
      ...base,
      tree: async () => {
        const commit = await git.readCommit(sha);
        if (commit === null) throw new Error(`commit ${sha} vanished`);
        return gitObject(git, commit.tree, "tree");
      },
    };
  }
  if (type === "tree") {
    return {
      ...base,
      entries: async () =>
        ((await git.readTree(sha)) ?? []).map((item) => {
          const entryType = item.mode === "040000" ? "tree" : item.mode === "160000" ? "commit" : "blob";
          // A submodule's commit is not in this repository: GitHub gives no object for it.
          return {
            name: item.name,
            type: entryType,
            mode: parseInt(item.mode, 8),
            oid: item.sha,
            object: () => (entryType === "commit" ? null : gitObject(git, item.sha, entryType)),
          };
        }),
    };
  }
  const content = async () => git.readBlob(sha);
  const binary = async () => (await content()).subarray(0, 8000).includes(0);
  return {
    ...base,
    byteSize: async () => (await content()).length,
    isBinary: binary,
    isTruncated: async () => !(await binary()) && (await content()).length > BLOB_TEXT_LIMIT,
    text: async () => ((await binary()) ? null : (await content()).subarray(0, BLOB_TEXT_LIMIT).toString("utf8")),
  };
}
