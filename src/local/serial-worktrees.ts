/**
 * git's work-tree bookkeeping (`.git/worktrees/<name>/`) is not safe against itself: while one
 * `git worktree add` is creating an entry, a second `worktree add`, `list`, `remove` or `prune`
 * reads the half-made entry and fails ("failed to read .git/worktrees/x/commondir"), and `prune`
 * may even delete it. The local driver runs attempts, queue verification and review side by side
 * in one repository, so every `git worktree …` call of the run goes through one queue — and,
 * with a lock file, through one queue across processes too (two `naruto run`s, or a run and a
 * `naruto resume`, in the same repository).
 */
import { mkdir, open, readFile, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { Git, GitCall } from "../git/run-git.ts";
import { removeIfStale } from "./lock-takeover.ts";

/** Options of git itself that take a separate value (`git -c k=v worktree …`). */
const WITH_VALUE = new Set(["-c", "-C", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"]);

/** The git subcommand of a call: the first argument that is not an option of git itself. */
export function gitSubcommand(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith("-")) return arg;
  }
  return null;
}

/**
 * The same git, with `git worktree …` calls run one at a time (in the order they were made);
 * with `lockFile`, each also holds that file (see {@link withFileLock}) while it runs.
 */
export function serialWorktrees(git: Git, options: { lockFile?: string } = {}): Git {
  let tail: Promise<unknown> = Promise.resolve();
  const { lockFile } = options;
  return (call: GitCall) => {
    if (gitSubcommand(call.args) !== "worktree") return git(call);
    const result = tail.then(() => (lockFile === undefined ? git(call) : withFileLock(lockFile, () => git(call))));
    tail = result.catch(() => undefined);
    return result;
  };
}

/** A lock older than this is left over by a process that died (a worktree call takes < 1 s). */
export const STALE_LOCK_MS = 2 * 60_000;

/**
 * A lock file is created empty and gets its holder's pid a moment later; one still empty after
 * this long was left by a process killed in between (SIGKILL, the OOM killer).
 */
export const EMPTY_LOCK_MS = 5_000;

export interface FileLockOptions {
  /** Give up after this long (default 2 minutes), saying who holds the lock. */
  readonly timeoutMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Whether a process lives (default: `process.kill(pid, 0)`). */
  readonly alive?: (pid: number) => boolean;
}

/**
 * Runs `work` while holding `path`, a file created exclusively (`O_EXCL`) holding our pid and
 * removed afterwards. A lock whose process is gone, that is older than {@link STALE_LOCK_MS}, or
 * that never got a pid (its process was killed between creating and writing it), is taken over,
 * by one process at a time (lock-takeover.ts).
 */
export async function withFileLock<T>(path: string, work: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const alive = options.alive ?? processAlive;
  const timeoutMs = options.timeoutMs ?? 2 * 60_000;
  const stale = (holder: { pid: number | null; ageMs: number }) => (holder.pid === null ? holder.ageMs > EMPTY_LOCK_MS : !alive(holder.pid) || holder.ageMs > STALE_LOCK_MS);
  await mkdir(dirname(path), { recursive: true });
  let waited = 0;
  for (let round = 0; ; round++) {
    try {
      const handle = await open(path, "wx");
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = await lockHolder(path);
    if (holder !== null && stale(holder)) {
      const removed = await removeIfStale(path, async () => {
        const now = await lockHolder(path);
        return now !== null && stale(now);
      });
      if (removed) continue;
    }
    if (waited >= timeoutMs) {
      throw new Error(`${path} is held by process ${holder?.pid ?? "?"} for ${Math.round(waited / 1000)} s: another naruto is working in this repository; if none is, delete the file`);
    }
    const pause = Math.min(5 * 2 ** round, 100);
    await sleep(pause);
    waited += pause;
  }
  try {
    return await work();
  } finally {
    await rm(path, { force: true });
  }
}

/** The lock's holder; `pid` null while the file has none yet (see {@link EMPTY_LOCK_MS}). */
async function lockHolder(path: string): Promise<{ pid: number | null; ageMs: number } | null> {
  try {
    const [text, info] = await Promise.all([readFile(path, "utf8"), stat(path)]);
    const pid = Number.parseInt(text, 10);
    return { pid: Number.isInteger(pid) && pid > 0 ? pid : null, ageMs: Date.now() - info.mtimeMs };
  } catch {
    return null; // released meanwhile
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it lives, under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
