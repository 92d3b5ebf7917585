import { gitText, type Git } from "./run-git.ts";
import { readRefs, worktreeArgs, type Worktree } from "./worktree.ts";

/** A ref that differs from the snapshot taken when the work tree was made (null: absent). */
export interface RefChange {
  readonly ref: string;
  readonly before: string | null;
  readonly after: string | null;
}

/** Why the history an agent left cannot become a checkpoint. */
export type HistoryProblem =
  | { readonly code: "no_head" }
  | { readonly code: "head_on_other_branch"; readonly ref: string }
  | { readonly code: "branch_deleted" }
  | { readonly code: "refs_changed"; readonly refs: readonly RefChange[] }
  | { readonly code: "not_descendant"; readonly commit: string };

export type HistoryCheck =
  | { readonly ok: true; readonly head: string; readonly branchTip: string }
  | { readonly ok: false; readonly problem: HistoryProblem; readonly reason: string };

/**
 * Checks what the agent did to history. Commits of its own on the worker branch (or on a detached
 * HEAD) are fine: they are folded into the checkpoint. Not fine: HEAD on another branch or without
 * a commit, the worker branch deleted, any other ref created, moved or deleted, or HEAD / the
 * worker branch no longer descending from the start commit.
 *
 * `sharedRefs` names refs (exact, or prefixes ending in `/`) that other writers move while the
 * agent runs and so cannot be blamed on it: in a local run every attempt shares one ref store
 * with the queue, the other workers and the user (e.g. `refs/heads/naruto/`). Default: none,
 * right for a job with its own clone.
 */
export async function checkHistory(options: { readonly git: Git; readonly worktree: Worktree; readonly sharedRefs?: readonly string[] }): Promise<HistoryCheck> {
  const { git, worktree } = options;
  const args = [...worktreeArgs(worktree), "--no-optional-locks"];
  const cwd = worktree.gitDir;
  const symbolic = await gitText(git, { args: [...args, "symbolic-ref", "-q", "HEAD"], cwd, okCodes: [1] });
  if (symbolic !== "" && symbolic !== worktree.branch) {
    return fail({ code: "head_on_other_branch", ref: symbolic }, `HEAD was switched to ${symbolic}; the agent must stay on ${worktree.branch}`);
  }
  const head = await gitText(git, { args: [...args, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"], cwd, okCodes: [1] });
  if (head === "") return fail({ code: "no_head" }, "HEAD has no commit (the agent left an unborn or orphan branch)");
  const after = await readRefs(git, worktree.gitDir);
  const branchTip = after[worktree.branch];
  if (branchTip === undefined) return fail({ code: "branch_deleted" }, `the worker branch ${worktree.branch} was deleted`);
  const moved = diffRefs(worktree.refs, after).filter((c) => c.ref !== worktree.branch && !isShared(c.ref, options.sharedRefs ?? []));
  if (moved.length > 0) {
    const list = moved.map((c) => `${c.ref} (${c.before === null ? "created" : c.after === null ? "deleted" : "moved"})`).join(", ");
    return fail({ code: "refs_changed", refs: moved }, `the agent changed refs other than its worker branch: ${list}`);
  }
  for (const commit of new Set([head, branchTip])) {
    const { code } = await git({ args: [...args, "merge-base", "--is-ancestor", worktree.start, commit], cwd, okCodes: [1] });
    if (code === 1) {
      return fail({ code: "not_descendant", commit }, `${commit === head ? "HEAD" : worktree.branch} (${commit}) no longer descends from the start commit ${worktree.start}`);
    }
  }
  return { ok: true, head, branchTip };
}

/** Refs created, moved or deleted between two snapshots, sorted by name. */
export function diffRefs(before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>): RefChange[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changes: RefChange[] = [];
  for (const ref of [...names].sort()) {
    const b = before[ref] ?? null;
    const a = after[ref] ?? null;
    if (a !== b) changes.push({ ref, before: b, after: a });
  }
  return changes;
}

function isShared(ref: string, shared: readonly string[]): boolean {
  return shared.some((s) => (s.endsWith("/") ? ref.startsWith(s) : ref === s));
}

function fail(problem: HistoryProblem, reason: string): HistoryCheck {
  return { ok: false, problem, reason };
}
