import type { RepoPath } from "../plan/paths.ts";
import type { Git } from "./run-git.ts";
import { changedPaths, listChanges, type Change } from "./changes.ts";
import { DEFAULT_AUTHOR, formatCheckpointMessage, snapshotWorktree, writeCheckpoint, type Identity } from "./checkpoint.ts";
import { checkHistory, type HistoryProblem } from "./history.ts";
import { checkScope, type ScopeViolation } from "./scope.ts";
import type { Worktree } from "./worktree.ts";

/** How an attempt ended, as far as git can tell. Only `checkpointed` has anything to integrate. */
export type AttemptOutcome =
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
    }
  | { readonly kind: "no_changes"; readonly base: string }
  | { readonly kind: "out_of_scope"; readonly violations: readonly ScopeViolation[]; readonly changed: readonly string[] }
  | { readonly kind: "invalid_history"; readonly reason: string; readonly problem: HistoryProblem };

export interface FinishAttemptOptions {
  readonly git: Git;
  /** The attempt's work tree, as {@link createWorktree} or {@link recreateWorktree} returned it. */
  readonly worktree: Worktree;
  /** The item (a `PlanItem` fits); `title` is the checkpoint's subject (default: the id). */
  readonly item: { readonly id: string; readonly title?: string; readonly writes: readonly RepoPath[]; readonly readonly: boolean };
  /** The mission id, when the caller has it: checked against the work tree's. */
  readonly mission?: string;
  readonly protected: readonly RepoPath[];
  /** The config allows writing protected paths (default false). */
  readonly allowProtected?: boolean;
  readonly attempt: number;
  /** The agent profile that ran. */
  readonly agent: string;
  /** The checkpoint's author (default {@link DEFAULT_AUTHOR}); also its committer. */
  readonly author?: Identity;
  /** Body of the checkpoint message, e.g. the agent's summary. */
  readonly summary?: string;
  /** Refs other writers may move meanwhile (see {@link checkHistory}); default none. */
  readonly sharedRefs?: readonly string[];
  /** Fixed commit date (default: now). */
  readonly date?: Date;
}

/** The item or mission given does not belong to the work tree: a caller bug, not an agent's failure. */
export class AttemptMismatchError extends Error {
  override readonly name = "AttemptMismatchError";
}

/**
 * After the agent exited: checks the history it left, snapshots the work tree, lists every change
 * against the start commit, checks the scope, and writes the one checkpoint commit. An attempt
 * that fails a check leaves no checkpoint (the worker branch stays where the agent left it, for
 * inspection; it carries no trailers and is never integrated). Never touches the user's checkout.
 * Git failures throw GitError.
 *
 * @example
 * const wt = await createWorktree({ git, repoDir, mission: "m-1", item: "api", at: queueHead });
 * // … run the agent in wt.path …
 * const outcome = await finishAttempt({ git, worktree: wt, item, protected: [], attempt: 1, agent: "claude" });
 * if (outcome.kind === "checkpointed") integrate(outcome.commit);
 */
export async function finishAttempt(options: FinishAttemptOptions): Promise<AttemptOutcome> {
  const { git, worktree, item } = options;
  if (item.id !== worktree.item || (options.mission !== undefined && options.mission !== worktree.mission)) {
    throw new AttemptMismatchError(
      `item ${JSON.stringify(item.id)} of mission ${JSON.stringify(options.mission ?? worktree.mission)} does not match the work tree of ${worktree.mission}/${worktree.item}`,
    );
  }
  const history = await checkHistory({ git, worktree, sharedRefs: options.sharedRefs ?? [] });
  if (!history.ok) return { kind: "invalid_history", reason: history.reason, problem: history.problem };

  const tree = await snapshotWorktree({ git, worktree, head: history.head });
  const changes = await listChanges({ git, gitDir: worktree.gitDir, base: worktree.start, tree });
  if (changes.length === 0) return { kind: "no_changes", base: worktree.start };

  const changed = changedPaths(changes);
  const scope = checkScope(changes, {
    writes: item.writes,
    readonly: item.readonly,
    protected: options.protected,
    allowProtected: options.allowProtected ?? false,
  });
  if (!scope.ok) return { kind: "out_of_scope", violations: scope.violations, changed };

  const message = formatCheckpointMessage({
    title: item.title ?? item.id,
    ...(options.summary !== undefined ? { body: options.summary } : {}),
    mission: worktree.mission,
    item: item.id,
    attempt: options.attempt,
    agent: options.agent,
  });
  const commit = await writeCheckpoint({
    git,
    worktree,
    tree,
    expectedTip: history.branchTip,
    message,
    author: options.author ?? DEFAULT_AUTHOR,
    ...(options.date ? { date: options.date } : {}),
  });
  return { kind: "checkpointed", commit, base: worktree.start, branch: worktree.branch, changed, changes };
}
