/**
 * After the agent exited: what it left in its work directory becomes, at most, one checkpoint
 * commit (docs/architecture.md). naruto reads the directory with its own git (src/sandbox/snapshot.ts),
 * lists every change against the start commit, checks the scope, and writes one commit whose
 * parent is the start commit — the agent's own commits, staged and unstaged changes and
 * untracked files all folded into it — on the worker branch `naruto/<mission>--<item>` of the
 * repository. The agent's throwaway repository is its own business: its refs, HEAD and history
 * are never read, so nothing it does there can fail or steer the attempt (its index is read for
 * the gitlinks and ignored files it staged: src/sandbox/agent-index.ts). Before anything is
 * written, the change passes the gate (src/gate/gate.ts), and a refusal is `out_of_scope`. What
 * naruto hashed waits in its view's quarantine (src/sandbox/quarantine.ts) and reaches the
 * repository's store only with an accepted checkpoint.
 */
import { changedPaths, type Change } from "../gate/index.ts";
import { DEFAULT_AUTHOR, formatCheckpointMessage, type Identity } from "../gate/index.ts";
import { refUpdate, updateRefs, writeTreeCommit, type Git } from "../git/index.ts";
import { checkGate, STRICT_GATE, type GatePolicy } from "../gate/index.ts";
import { checkScope, type ScopeViolation } from "../gate/index.ts";
import { workerBranch } from "../gate/index.ts";
import type { RepoPath } from "../plan/index.ts";
import { viewCall } from "../sandbox/index.ts";
import { acceptObjects, snapshotWorkDir } from "../sandbox/index.ts";
import type { WorkDir } from "../sandbox/index.ts";

/** How an attempt ended, as far as its files tell. Only `checkpointed` has anything to integrate. */
export type CheckpointOutcome =
  | {
      readonly kind: "checkpointed";
      /** The checkpoint commit; its only parent is `base`. */
      readonly commit: string;
      /** The start commit: the queue integrates `diff base..commit`. */
      readonly base: string;
      /** Full ref of the worker branch, now at `commit`. */
      readonly branch: string;
      /** Every changed path, both sides of renames, sorted. */
      readonly changed: readonly string[];
      readonly changes: readonly Change[];
      readonly notes: readonly string[];
    }
  | { readonly kind: "no_changes"; readonly base: string; readonly notes: readonly string[] }
  | {
      readonly kind: "out_of_scope";
      readonly violations: readonly ScopeViolation[];
      readonly changed: readonly string[];
      readonly tree: string;
      readonly notes: readonly string[];
    };

export interface CheckpointOptions {
  readonly git: Git;
  /** The repository the worker branch is written in (the user's, or a job's clone). */
  readonly repoDir: string;
  readonly workDir: WorkDir;
  readonly mission: string;
  readonly item: { readonly id: string; readonly title?: string; readonly writes: readonly RepoPath[]; readonly readonly: boolean };
  readonly protected: readonly RepoPath[];
  readonly allowProtected?: boolean;
  /** What the gate lets through (default: nothing beyond plain files, 50 MiB; see gatePolicy(config)). */
  readonly gate?: GatePolicy;
  readonly attempt: number;
  /** The agent profile that ran. */
  readonly agent: string;
  /** Body of the checkpoint message, e.g. the agent's summary. */
  readonly summary?: string;
  /** The checkpoint's author (default {@link DEFAULT_AUTHOR}); also its committer. */
  readonly author?: Identity;
  /** Fixed commit date (default: now). */
  readonly date?: Date;
  /** A second ref to point at the checkpoint, in the same ref transaction (where it is kept). */
  readonly keepAt?: string;
}

/**
 * Reads the work directory and, when every change is within the item's scope, writes the
 * checkpoint. Never touches the user's work tree, index or HEAD; git failures throw GitError.
 *
 * @example
 * const dir = await createWorkDir({ git, repo, folder, label: "api.1", commit: queueHead, record });
 * // … the agent runs in dir.path …
 * const outcome = await checkpointWorkDir({ git, repoDir, workDir: dir, mission: "m-1", item, protected: [], attempt: 1, agent: "claude" });
 */
export async function checkpointWorkDir(options: CheckpointOptions): Promise<CheckpointOutcome> {
  const { git, workDir, item } = options;
  const policy = options.gate ?? STRICT_GATE;
  const snapshot = await snapshotWorkDir(git, workDir, { maxFileSize: policy.maxFileSize });
  const call = (args: readonly string[], extra?: { input?: string }) => viewCall(snapshot.view, args, extra);
  // The objects are in the view's quarantine: only the view reads them (not the repository's long-running processes).
  const gate = await checkGate({ git, call, base: workDir.start, tip: snapshot.tree, policy });
  const changes = gate.changes ?? [];
  const notes = snapshot.notes;
  if (changes.length === 0 && gate.kind === "passed" && snapshot.refused.length === 0) return { kind: "no_changes", base: workDir.start, notes };
  const changed = changedPaths(changes);
  const scope = checkScope(changes, {
    writes: item.writes,
    readonly: item.readonly,
    protected: options.protected,
    allowProtected: options.allowProtected ?? false,
  });
  const violations = [...snapshot.refused, ...(gate.kind === "refused" ? gate.violations : []), ...(scope.ok ? [] : scope.violations)];
  if (violations.length > 0) {
    return { kind: "out_of_scope", violations, changed: [...new Set([...changed, ...violations.map((v) => v.path)])].sort(), tree: snapshot.tree, notes };
  }
  const message = formatCheckpointMessage({
    title: item.title ?? item.id,
    ...(options.summary !== undefined ? { body: options.summary } : {}),
    mission: options.mission,
    item: item.id,
    attempt: options.attempt,
    agent: options.agent,
  });
  // Its objects leave the quarantine for the store, where fast-import finds the tree.
  await acceptObjects(snapshot.view);
  const commit = await commitTree({
    git,
    repoDir: options.repoDir,
    workDir,
    tree: snapshot.tree,
    message,
    author: options.author ?? DEFAULT_AUTHOR,
    ...(options.date ? { date: options.date } : {}),
  });
  const branch = `refs/heads/${workerBranch(options.mission, item.id)}`;
  const refs = [branch, ...(options.keepAt ? [options.keepAt] : [])];
  await git(
    updateRefs(
      options.repoDir,
      refs.map((r) => refUpdate(r, commit)),
      { message: "naruto: checkpoint", config: ["core.hooksPath=/dev/null"] },
    ),
  );
  return { kind: "checkpointed", commit, base: workDir.start, branch, changed, changes, notes };
}

/**
 * A commit of `tree` whose only parent is the work directory's start commit, written into the
 * repository at `repoDir` (whose store holds the tree: naruto's view writes there) by git's
 * fast-import, naruto's one commit writer: no config of the work directory's, no signing, no hooks.
 */
export async function commitTree(input: {
  git: Git;
  repoDir: string;
  workDir: WorkDir;
  tree: string;
  message: string;
  author: Identity;
  date?: Date;
}): Promise<string> {
  return writeTreeCommit({
    git: input.git,
    repoDir: input.repoDir,
    tree: input.tree,
    parent: input.workDir.start,
    identity: input.author,
    at: input.date ?? new Date(),
    message: input.message,
  });
}
