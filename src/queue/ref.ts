/**
 * The queue ref and its compare-and-swap. `git update-ref REF NEW OLD` moves REF only if it
 * still holds OLD, atomically; a failure is told apart from a lost race by reading the ref
 * again, never by the text of git's message.
 */
import { GitError, refUpdate, updateRefs, type Git } from "../git/index.ts";

/** Thrown for a mission id or ref name that is not safe to put into a ref. */
export class QueueRefError extends Error {
  override readonly name = "QueueRefError";
}

const MISSION = /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;

/** `refs/heads/naruto/<mission>` for a mission id such as `m-1a2b3c`. */
export function queueRefName(mission: string): string {
  if (!MISSION.test(mission) || mission.length > 100 || mission.endsWith(".lock")) {
    throw new QueueRefError(`mission id ${JSON.stringify(mission)} cannot name a branch; use letters, digits, ".", "_" and "-"`);
  }
  return `refs/heads/naruto/${mission}`;
}

function checkRef(ref: string): void {
  const parts = ref.split("/");
  const ok =
    parts.length >= 3 && parts[0] === "refs" && parts.every((p) => /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(p) && !p.endsWith(".lock") && !p.includes(".."));
  if (!ok) throw new QueueRefError(`${JSON.stringify(ref)} is not a full ref name naruto accepts (refs/…)`);
}

/** The commit a ref points at, or null when it does not exist. */
export async function readRef(git: Git, repoDir: string, ref: string): Promise<string | null> {
  checkRef(ref);
  const out = await git({ args: ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], cwd: repoDir, okCodes: [1] });
  return out.code === 0 ? out.stdout.toString("latin1").trim() : null;
}

export type SwapResult = { readonly ok: true } | { readonly ok: false; readonly current: string | null };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Moves `ref` from `expected` (null: must not exist yet) to `next`. Answers `{ ok: false }` with
 * the ref's current value when someone else moved it first.
 */
export async function compareAndSwap(input: {
  git: Git;
  repoDir: string;
  ref: string;
  next: string;
  expected: string | null;
  reason: string;
}): Promise<SwapResult> {
  const { git, repoDir, ref } = input;
  checkRef(ref);
  for (let attempt = 1; ; attempt++) {
    try {
      await git(updateRefs(repoDir, [refUpdate(ref, input.next, input.expected)], { message: input.reason }));
      return { ok: true };
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      const current = await readRef(git, repoDir, ref);
      if (current !== input.expected) return { ok: false, current };
      // Unmoved: another process held the ref's lock for a moment. Try again, a few times.
      if (attempt >= 4) throw error;
      await pause(10 * attempt);
    }
  }
}
