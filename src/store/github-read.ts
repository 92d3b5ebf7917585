/**
 * How the GitHub mission store reads a version's records: all of them in one GraphQL answer,
 * about 1.2 KB per item. GitHub stops any query it cannot answer within 10 s and says 502 (or
 * 504) after those 10 s, and a mission of a few thousand items can ask for that much. Such a
 * version is read a level of its tree at a time instead: the root, `items/`, then one query per
 * folder of 64 records (src/mission/records.ts), a few at once; and a mission of more records
 * than one folder holds, once read so, is read so from then on in this process, without waiting
 * 10 s for the same 502 again.
 */
import { GitHubError, GraphqlError } from "../github/index.ts";
import { ITEMS_FOLDER, ITEMS_PER_FOLDER } from "../mission/index.ts";
import type { CommittedFile, GitHubPort } from "../github/index.ts";

/** Folders of a version read at once. */
const LEVELS_AT_ONCE = 4;
/** As deep as the one-answer read goes: files at the root, in a folder and in a folder's folder. */
const MAX_DEPTH = 3;

export type VersionFiles = { readonly tree: string; readonly files: readonly CommittedFile[] } | null;

/** Reads versions of missions, remembering which missions were too large for one answer. */
export function createVersionReader(
  github: Pick<GitHubPort, "readCommitFiles" | "readTreeLevel">,
): (mission: string, version: string) => Promise<VersionFiles> {
  const large = new Set<string>();
  return async (mission, version) => {
    if (!large.has(mission)) {
      try {
        return await github.readCommitFiles(version);
      } catch (error) {
        if (!isTooLarge(error)) throw error;
      }
    }
    const read = await readByLevels(github, version);
    // One folder of records is never too much for one answer: that 502 was GitHub's passing
    // trouble, and the next version is read at once again.
    if (read !== null && read.files.filter((f) => f.path.startsWith(`${ITEMS_FOLDER}/`)).length > ITEMS_PER_FOLDER) large.add(mission);
    else large.delete(mission);
    return read;
  };
}

/** What GitHub answers a query it could not finish: a 5xx, no answer in time, or errors instead of data. */
function isTooLarge(error: unknown): boolean {
  if (error instanceof GraphqlError) return true;
  return error instanceof GitHubError && (error.status === null || error.status >= 500);
}

async function readByLevels(github: Pick<GitHubPort, "readTreeLevel">, version: string): Promise<VersionFiles> {
  const root = await github.readTreeLevel(version);
  if (root === null) return null;
  const files: CommittedFile[] = [...root.files];
  let folders = root.folders.map((f) => ({ path: `${f.name}/`, tree: f.tree }));
  for (let depth = 2; depth <= MAX_DEPTH && folders.length > 0; depth++) {
    const next: typeof folders = [];
    for (let i = 0; i < folders.length; i += LEVELS_AT_ONCE) {
      const batch = folders.slice(i, i + LEVELS_AT_ONCE);
      const levels = await Promise.all(batch.map((f) => github.readTreeLevel(f.tree)));
      for (const [j, level] of levels.entries()) {
        const { path } = batch[j] as (typeof folders)[number];
        // A tree named by its parent is there; a null here is GitHub's answer changing under us.
        if (level === null) throw new GraphqlError({ operation: `read the tree ${path}`, status: 200, message: "the folder's tree was not found", errors: [] });
        files.push(...level.files.map((f) => ({ ...f, path: path + f.path })));
        next.push(...level.folders.map((f) => ({ path: `${path}${f.name}/`, tree: f.tree })));
      }
    }
    folders = next;
  }
  return { tree: root.tree, files };
}
