/**
 * Builds a candidate: the given checkpoints as a chain of commits on top of a base commit,
 * one queue commit per checkpoint, with no work tree and no ref moved.
 *
 * Each checkpoint is first checked against the in-memory tree of the candidate so far (pure).
 * When it fits (the fast path) its changes are queued for one write of the commits: one
 * `fast-import` stream, naruto's one commit writer. When a path
 * changed underneath, the commits queued so far are written, and the checkpoint is merged for
 * real onto that commit (the slow path): a clean merge joins the chain with the merged result,
 * a conflict leaves the chain as it was and reports the paths.
 */
import type { Git } from "../git/index.ts";
import { runFastImport, type ImportCommit } from "../git/index.ts";
import { mergeCheckpoint, type MergeEngineChoice } from "./merge.ts";
import type { CommitObject } from "../git/index.ts";
import { diffTrees, type PreparedCheckpoint } from "./read.ts";
import type { PathChange, RawPath, VirtualTree } from "../git/index.ts";

/** A real commit and the in-memory picture of its tree. */
export interface ChainBase {
  readonly commit: string;
  readonly tree: VirtualTree;
}

/** A checkpoint with its position in the batch (results are reported by position). */
export interface ChainItem {
  readonly index: number;
  readonly prepared: PreparedCheckpoint;
}

export type ChainStep =
  | { readonly index: number; readonly status: "integrated"; readonly commit: string; readonly changed: readonly RawPath[]; readonly merged: boolean }
  | { readonly index: number; readonly status: "conflicted"; readonly paths: readonly RawPath[] };

export interface Chain {
  readonly tip: ChainBase;
  /** One step per item, in order. */
  readonly steps: readonly ChainStep[];
}

export interface ChainContext {
  readonly git: Git;
  readonly repoDir: string;
  readonly merge: MergeEngineChoice;
  /** The committer header value for the queue commit of a checkpoint. */
  readonly committer: (meta: CommitObject) => string;
}

interface Pending {
  readonly index: number;
  readonly commit: ImportCommit;
  readonly merged: boolean;
}

export async function buildChain(ctx: ChainContext, base: ChainBase, items: readonly ChainItem[]): Promise<Chain> {
  const tree = base.tree.clone();
  const steps: ChainStep[] = [];
  let from = base.commit;
  let pending: Pending[] = [];

  const flush = async (): Promise<string> => {
    if (pending.length === 0) return from;
    const commits = pending.map((p) => p.commit);
    const ids = await runFastImport({ git: ctx.git, repoDir: ctx.repoDir, from, commits });
    pending.forEach((p, i) => {
      const commit = ids[i] ?? "";
      steps.push({ index: p.index, status: "integrated", commit, changed: p.commit.changes.map((c) => c.path), merged: p.merged });
      from = commit;
    });
    pending = [];
    return from;
  };
  const queueCommit = (meta: CommitObject, changes: readonly PathChange[]): ImportCommit => ({
    author: meta.author,
    committer: ctx.committer(meta),
    encoding: meta.encoding,
    message: meta.message,
    changes,
  });

  for (const { index, prepared } of items) {
    const verdict = tree.check(prepared.changes);
    if (verdict.ok) {
      tree.apply(prepared.changes);
      pending.push({ index, commit: queueCommit(prepared.meta, prepared.changes), merged: false });
      continue;
    }
    const ours = await flush();
    const { base: mergeBase, commit: theirs } = prepared.checkpoint;
    const outcome = await mergeCheckpoint({ git: ctx.git, repoDir: ctx.repoDir, engine: ctx.merge, base: mergeBase, ours, theirs });
    if (!outcome.clean) {
      steps.push({ index, status: "conflicted", paths: outcome.paths.length > 0 ? outcome.paths : verdict.paths });
      continue;
    }
    // The merged result, as changes against the candidate: exact, whatever the merge did.
    const changes = await diffTrees(ctx.git, ctx.repoDir, ours, outcome.tree);
    tree.apply(changes);
    pending.push({ index, commit: queueCommit(prepared.meta, changes), merged: true });
  }
  await flush();
  return { tip: { commit: from, tree }, steps };
}
