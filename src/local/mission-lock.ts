/**
 * Who drives a mission on this machine. `naruto run` and `naruto resume` hold
 * `<git-common-dir>/naruto/missions/<id>/driver.lock` while they drive it, so a resume beside the
 * run, or a second resume, finds the holder alive and refuses instead of starting every item a
 * second time. The file names the holder's pid and, on Linux, when that process started (field
 * 22 of `/proc/<pid>/stat`): a pid the system has since given to another process is not the
 * holder. A holder killed outright leaves the file behind, and the next one takes it over.
 */
import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { missionDir } from "../engine/index.ts";
import { removeIfStale, TAKEOVER_STALE_MS } from "./lock-takeover.ts";

/** A live process drives the mission: it holds the driver lock, or its agents are that process's children. */
export class MissionStillRunningError extends Error {
  override readonly name = "MissionStillRunningError";
  constructor(
    readonly mission: string,
    readonly runner: number,
  ) {
    super(
      `mission ${mission} is still being run by process ${runner}: wait for it, or stop it (Ctrl-C in its terminal, or \`kill ${runner}\`) and resume again`,
    );
  }
}

export interface LockHolder {
  readonly pid: number;
  /** The process's start time, in clock ticks since boot; null where it cannot be read. */
  readonly start: string | null;
}

export interface MissionLockDeps {
  /** Who takes the lock (default: this process). */
  readonly self?: LockHolder;
  /** Whether the holder still runs (default: its pid lives and started when the file says). */
  readonly alive?: (holder: LockHolder) => Promise<boolean>;
}

export function driverLockPath(commonDir: string, mission: string): string {
  return join(missionDir(commonDir, mission), "driver.lock");
}

/**
 * Takes the mission's driver lock; the returned function gives it back. Throws
 * {@link MissionStillRunningError} while a live process holds it.
 */
export async function holdMission(commonDir: string, mission: string, deps: MissionLockDeps = {}): Promise<() => Promise<void>> {
  const path = driverLockPath(commonDir, mission);
  await mkdir(dirname(path), { recursive: true });
  const self = deps.self ?? { pid: process.pid, start: await startTime(process.pid) };
  const alive = deps.alive ?? holderAlive;
  const text = `${JSON.stringify(self)}\n`;
  // Written aside and linked into place: the lock never exists without its holder in it.
  const aside = `${path}.${self.pid}.${randomBytes(4).toString("hex")}`;
  await writeFile(aside, text);
  try {
    const stale = async () => {
      const holder = await readHolder(path);
      return holder === null || !(await alive(holder));
    };
    // Long enough to outlast a `.takeover` file its judge left behind (lock-takeover.ts).
    for (const deadline = Date.now() + 3 * TAKEOVER_STALE_MS; Date.now() < deadline; ) {
      try {
        await link(aside, path);
        return async () => {
          // Only our own: a lock someone took over from us is theirs.
          if ((await readFile(path, "utf8").catch(() => null)) === text) await rm(path, { force: true });
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = await readHolder(path);
      if (holder !== null && (await alive(holder))) throw new MissionStillRunningError(mission, holder.pid);
      // Its holder died: take it over, unless another process is judging it right now.
      if (!(await removeIfStale(path, stale))) await sleep(10);
    }
    throw new Error(`${path} could not be taken: if no naruto drives mission ${mission}, delete it and its .takeover file`);
  } finally {
    await rm(aside, { force: true });
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function readHolder(path: string): Promise<LockHolder | null> {
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as { pid?: unknown; start?: unknown };
    if (typeof parsed.pid !== "number" || !Number.isInteger(parsed.pid) || parsed.pid <= 0) return null;
    return { pid: parsed.pid, start: typeof parsed.start === "string" ? parsed.start : null };
  } catch {
    return null; // gone meanwhile, or not a lock naruto wrote: nobody holds it
  }
}

async function holderAlive(holder: LockHolder): Promise<boolean> {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const stat = await procStat(holder.pid);
  if (stat === null) return holder.start === null; // no process table to ask: the pid lives
  // A zombie has exited: it only waits for its parent to read its status.
  return stat.state !== "Z" && stat.state !== "X" && (holder.start === null || stat.start === holder.start);
}

async function startTime(pid: number): Promise<string | null> {
  return (await procStat(pid))?.start ?? null;
}

/** Fields 3 (state) and 22 (start time, in clock ticks since boot) of `/proc/<pid>/stat`; null off Linux or once the process is gone. */
async function procStat(pid: number): Promise<{ state: string; start: string } | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (stat === null) return null;
  // The fields after the parenthesized name start at field 3.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [state, start] = [fields[0], fields[19]];
  return state === undefined || start === undefined ? null : { state, start };
}
