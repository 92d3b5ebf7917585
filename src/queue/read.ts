/**
 * Reads what a batch needs from git with one process per kind of question, whatever the batch
 * size: the checkpoints' commit objects (`cat-file --batch`), all their changes (`diff-tree
 * --stdin`), and a head's whole tree (`ls-tree -r`).
 */
import { diffTrees as changesOf, readObjects, type Git } from "../git/index.ts";
import { CheckpointInputError, type Checkpoint } from "./types.ts";
import { parseCatFileBatch, parseCommit, parseLsTree, parseRawDiff, type CommitObject } from "../git/index.ts";
import { VirtualTree, type PathChange } from "../git/index.ts";

const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** A checkpoint with everything needed to replay it: its commit object and its changes. */
export interface PreparedCheckpoint {
  readonly checkpoint: Checkpoint;
  readonly meta: CommitObject;
  readonly changes: readonly PathChange[];
}

/** Diff options that make the output independent of the user's diff config. */
const RAW_DIFF = ["-r", "--raw", "-z", "--no-renames", "--no-ext-diff", "--no-textconv"];

export async function readCheckpoints(git: Git, repoDir: string, checkpoints: readonly Checkpoint[]): Promise<PreparedCheckpoint[]> {
  if (checkpoints.length === 0) return [];
  for (const cp of checkpoints) {
    if (!OID.test(cp.commit) || !OID.test(cp.base)) throw new CheckpointInputError(cp, "commit and base must be full object ids");
  }
  const unique = [...new Map(checkpoints.map((cp) => [cp.commit, cp.base]))];
  // Both reads at once (they are independent); the commit objects are checked first so that a
  // bad input is reported as such rather than as diff-tree's failure.
  const [objects, diff] = await Promise.allSettled([
    // One long-running process per repository answers each (cat-file-session.ts, diff-tree-session.ts).
    git(
      readObjects(
        repoDir,
        unique.map(([id]) => id),
      ),
    ),
    git(changesOf(repoDir, unique)),
  ]);
  if (objects.status === "rejected") throw objects.reason;
  const metas = new Map<string, CommitObject>();
  for (const obj of parseCatFileBatch(objects.value.stdout.toString("latin1"))) {
    if ("oid" in obj && obj.type === "commit") metas.set(obj.oid, parseCommit(obj.content));
  }
  const withMeta = checkpoints.map((checkpoint) => {
    const meta = metas.get(checkpoint.commit);
    if (!meta) throw new CheckpointInputError(checkpoint, "no such commit in the repository");
    if (meta.parents.length !== 1 || meta.parents[0] !== checkpoint.base) {
      const parents = meta.parents.join(", ");
      throw new CheckpointInputError(checkpoint, `its parents are [${parents}], expected exactly its base ${checkpoint.base}`);
    }
    return { checkpoint, meta };
  });
  if (diff.status === "rejected") throw diff.reason;
  // A commit without changes gets no section at all.
  const changes = new Map<string, PathChange[]>();
  for (const section of parseRawDiff(diff.value.stdout.toString("latin1"))) {
    if (section.header !== null) changes.set(section.header, section.changes);
  }
  return withMeta.map(({ checkpoint, meta }) => ({ checkpoint, meta, changes: changes.get(checkpoint.commit) ?? [] }));
}

/**
 * The tree of the commit a batch ended at, kept for the next batch, which starts there when
 * nothing else moved the queue: a commit's tree never changes, so a kept tree is never stale.
 * One entry; whoever holds the cache (a driver, for the length of its run) passes it to each batch.
 */
export interface TreeCache {
  get(commit: string): VirtualTree | undefined;
  set(commit: string, tree: VirtualTree): void;
}

export function createTreeCache(): TreeCache {
  let kept: { commit: string; tree: VirtualTree } | null = null;
  return {
    // Callers build on a clone (buildChain), so the kept tree is never changed in place.
    get: (commit) => (kept?.commit === commit ? kept.tree : undefined),
    set: (commit, tree) => {
      kept = { commit, tree };
    },
  };
}

/** The whole tree of a commit, one `ls-tree` process (a 5,000-file tree lists in milliseconds), or none when `cache` holds it. */
export async function readTree(git: Git, repoDir: string, commit: string, cache?: TreeCache): Promise<VirtualTree> {
  const kept = cache?.get(commit);
  if (kept !== undefined) return kept;
  const { stdout } = await git({
    args: ["--no-optional-locks", "ls-tree", "-r", "-z", "--full-tree", commit],
    cwd: repoDir,
  });
  return VirtualTree.fromEntries(parseLsTree(stdout.toString("latin1")));
}

/** The changes between two trees, as `PathChange`s (used after a three-way merge). */
export async function diffTrees(git: Git, repoDir: string, from: string, to: string): Promise<PathChange[]> {
  const { stdout } = await git({ args: ["--no-optional-locks", "diff-tree", ...RAW_DIFF, from, to], cwd: repoDir });
  return parseRawDiff(stdout.toString("latin1")).flatMap((s) => s.changes);
}
