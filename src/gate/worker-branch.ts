/**
 * The worker branch of an item, `naruto/<mission>--<item>`: where its checkpoint commits are kept
 * in the repository. Not `naruto/<mission>/<item>`: git cannot hold a ref and refs below it, and
 * the queue is `naruto/<mission>`.
 */

/** A mission or item id cannot name a branch. */
export class BranchNameError extends Error {
  override readonly name = "BranchNameError";
}

// Mission and item ids become ref components and directory names: keep them to what both allow
// (the plan format's id rule, minus what `git check-ref-format` rejects).
export const ID = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/** `naruto/<mission>--<item>` (throws BranchNameError for ids a branch name cannot hold). */
export function workerBranch(mission: string, item: string): string {
  for (const [what, id] of [
    ["mission", mission],
    ["item", item],
  ] as const) {
    if (!ID.test(id) || id.includes("..") || id.endsWith(".lock") || id.endsWith(".")) {
      throw new BranchNameError(`${what} id ${JSON.stringify(id)} cannot name a branch: use [a-z0-9._-], starting with a letter or digit`);
    }
  }
  return `naruto/${mission}--${item}`;
}
