/**
 * One sandbox user per running sandbox when naruto is root (sandbox-user.ts). The kernel counts
 * `RLIMIT_NPROC` (limits.agent_processes) per user across the whole machine: were every sandbox
 * the same user, one agent's fork bomb would use up every other agent's processes and threads
 * (a Node CLI beside it fails in `pthread_create`). Each run therefore leases a uid of its own
 * from a range no account uses, and gives it back when its processes are gone.
 *
 * Leases are held in this process and, across naruto processes on one machine (two `naruto run`
 * as root, runner jobs on one self-hosted machine), as files in a folder only root may write
 * ({@link createUserPool}'s `claim`): a file whose process is gone counts for nothing. The search starts at a random uid,
 * so that processes that cannot see each other's leases (containers with their own `/run`) rarely
 * meet.
 */
import { mkdir, open, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxUser } from "./sandbox-user.ts";

/** The uids leased: 64000 to 64998 (64999 is the probe's, sandbox-user.ts), below `nobody`. */
export const SANDBOX_UIDS = { first: 64_000, count: 999 } as const;

/** Where leases are kept across naruto processes (as root). */
export const LEASE_DIR = "/run/naruto/sandbox-users";

export interface UserLease {
  readonly user: NonNullable<SandboxUser>;
  /** Gives the uid back (safe to call twice). */
  release(): Promise<void>;
}

export interface UserPool {
  /** A uid no other running sandbox has: `prefer` when it is free (a verify where its agent ran). */
  lease(prefer?: number): Promise<UserLease>;
}

export class NoSandboxUserError extends Error {
  constructor(range: { readonly first: number; readonly count: number }) {
    super(`every sandbox user (uids ${range.first}–${range.first + range.count - 1}) is in use by a running sandbox: lower limits.max_parallel`);
    this.name = "NoSandboxUserError";
  }
}

export interface UserPoolOptions {
  readonly first?: number;
  readonly count?: number;
  /** Lease files' folder; null: leases in this process only. Default LEASE_DIR. */
  readonly dir?: string | null;
  /** Where the search starts (default random). */
  readonly start?: () => number;
  /** Whether a process is alive (default `process.kill(pid, 0)`). */
  readonly alive?: (pid: number) => boolean;
}

export function createUserPool(options: UserPoolOptions = {}): UserPool {
  const first = options.first ?? SANDBOX_UIDS.first;
  const count = options.count ?? SANDBOX_UIDS.count;
  const dir = options.dir === undefined ? LEASE_DIR : options.dir;
  const alive = options.alive ?? processAlive;
  const held = new Set<number>();
  let made: Promise<boolean> | null = null;
  const folderReady = () => {
    if (dir === null) return Promise.resolve(false);
    made ??= mkdir(dir, { recursive: true, mode: 0o700 }).then(
      () => true,
      () => false,
    );
    return made;
  };

  /**
   * Leases `uid` across processes: this process's file `<uid>.<pid>` is made first, then every
   * other `<uid>.*` is looked at; if one's process is alive, this one steps back. Two processes
   * that claim the same uid at once both see each other and both step back; neither ever holds
   * a uid another holds. The files of processes that are gone are removed.
   */
  async function claim(uid: number): Promise<boolean> {
    if (dir === null || !(await folderReady())) return true;
    const mine = `${uid}.${process.pid}`;
    try {
      await (await open(join(dir, mine), "wx", 0o600)).close();
    } catch (error) {
      // Left by an earlier process with this pid: this process holds nothing (`held` says so).
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return true;
    }
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const [owner, pid] = name.split(".").map(Number);
      if (owner !== uid || name === mine || pid === undefined || !Number.isInteger(pid)) continue;
      if (!alive(pid)) {
        await unlink(join(dir, name)).catch(() => undefined);
        continue;
      }
      await unlink(join(dir, mine)).catch(() => undefined);
      return false;
    }
    return true;
  }

  return {
    async lease(prefer?: number): Promise<UserLease> {
      const start = options.start?.() ?? Math.floor(Math.random() * count);
      const order = [
        ...(prefer !== undefined && prefer >= first && prefer < first + count ? [prefer] : []),
        ...Array.from({ length: count }, (_, i) => first + ((start + i) % count)),
      ];
      for (const uid of order) {
        if (held.has(uid)) continue;
        held.add(uid);
        if (!(await claim(uid))) {
          held.delete(uid);
          continue;
        }
        let released = false;
        return {
          user: { uid, gid: uid },
          async release() {
            if (released) return;
            released = true;
            if (dir !== null && (await folderReady())) await unlink(join(dir, `${uid}.${process.pid}`)).catch(() => undefined);
            held.delete(uid);
          },
        };
      }
      throw new NoSandboxUserError({ first, count });
    },
  };
}

let processPool: UserPool | null = null;

/**
 * This process's pool: one for every sandbox it makes, since lease files are named by process
 * (two pools in one process would each take the other's file for its own).
 */
export function sharedUserPool(): UserPool {
  processPool ??= createUserPool();
  return processPool;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
