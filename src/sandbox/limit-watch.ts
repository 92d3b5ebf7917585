/**
 * naruto's watch over one sandbox's processes (limits.ts): how many processes and threads it has,
 * and how much private memory they hold, read from the sandbox's own `/proc` (its PID namespace:
 * exactly its processes, nothing of anyone else's) through `/proc/<its pid 1>/root/proc`. Reaching
 * the process limit, or passing the memory limit, stops the run.
 *
 * It looks often while a run is young or near a limit and twice a second otherwise: a memory hog
 * writes gigabytes a second, and the kernel's own per-process ceiling (`RLIMIT_DATA`, twice the
 * limit) is there for what grows faster than the watch looks.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import type { LimitHit, SandboxLimits } from "./limits.ts";

/** What one look saw, summed over the sandbox's processes. */
export interface Sample {
  /** Processes and threads (what `RLIMIT_NPROC` counts). */
  readonly tasks: number;
  /** Bytes of private memory resident (`RssAnon`). */
  readonly memory: number;
}

export interface WatchFs {
  readonly readdir: (path: string) => Promise<string[]>;
  readonly readFile: (path: string) => Promise<string>;
  readonly readlink: (path: string) => Promise<string>;
}

/**
 * `/proc` is read synchronously: each file is made by the kernel as it is read, in microseconds,
 * while an asynchronous read waits its turn in libuv's four threads behind naruto's other file
 * work. Measured under load (hostile-limits), looks that waited there took up to 370 ms, time
 * enough for a hog to grow from its limit to the RLIMIT_DATA ceiling at twice it before the look
 * ended; read at once, at most 76 ms.
 */
const realFs: WatchFs = {
  readdir: async (p) => readdirSync(p),
  readFile: async (p) => readFileSync(p, "utf8"),
  readlink: async (p) => readlinkSync(p),
};

/** Where to look: the sandbox's pid 1, as naruto sees it. */
export interface Sandboxed {
  readonly pid: number;
  /** naruto's `/proc` (tests give another). */
  readonly proc?: string;
}

/**
 * One look at the sandbox's processes; null when it is gone (the run ended), and `"not_yet"`
 * while its pid 1 has not made its own root yet (its `/proc` is still the host's).
 */
export async function sample(sandbox: Sandboxed, fs: WatchFs = realFs): Promise<Sample | "not_yet" | null> {
  const proc = sandbox.proc ?? "/proc";
  const procDir = `${proc}/${sandbox.pid}/root/proc`;
  let entries: string[];
  try {
    // Its own /proc shows its pid 1 in its own PID namespace; before its root is made, the host's shows another.
    const [own, seen] = await Promise.all([fs.readlink(`${proc}/${sandbox.pid}/ns/pid`), fs.readlink(`${procDir}/1/ns/pid`).catch(() => "")]);
    if (own !== seen) return "not_yet";
    entries = await fs.readdir(procDir);
  } catch {
    return null;
  }
  let tasks = 0;
  let memory = 0;
  await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e))
      .map(async (pid) => {
        const status = await fs.readFile(`${procDir}/${pid}/status`).catch(() => null);
        if (status === null) return; // gone meanwhile
        tasks += field(status, "Threads") ?? 1;
        memory += (field(status, "RssAnon") ?? 0) * 1024;
      }),
  );
  return { tasks, memory };
}

function field(status: string, name: string): number | null {
  const found = new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status);
  return found?.[1] === undefined ? null : Number(found[1]);
}

/** The limit a sample reached, if any. */
export function judge(seen: Sample, limits: SandboxLimits): LimitHit | null {
  if (seen.tasks >= limits.processes) return { limit: "processes", of: limits.processes, seen: seen.tasks };
  if (seen.memory > limits.memory) return { limit: "memory", of: limits.memory, seen: seen.memory, by: "watch" };
  return null;
}

const FAST_MS = 20;
const SLOW_MS = 500;

/**
 * How long until the next look: fast while memory is past half its limit, a tenth of a second
 * while the processes are (each look reads every process's status), and otherwise growing from
 * fast to twice a second as the run ages (`looks` so far).
 */
export function nextDelay(seen: Sample, limits: SandboxLimits, looks: number): number {
  if (seen.memory * 2 > limits.memory) return FAST_MS;
  if (seen.tasks * 2 > limits.processes) return 100;
  return Math.min(SLOW_MS, FAST_MS * 2 ** looks);
}

export interface LimitWatch {
  stop(): void;
  /** What the latest three looks saw, oldest first: how near a limit the run was when it was last seen. */
  last(): readonly Sample[];
}

/**
 * A run that ended on its own, failing, right after the watch saw its memory past half the limit
 * and not falling: the memory limit, reached at the kernel's per-process ceiling (`RLIMIT_DATA`,
 * twice the limit). Past half the limit the watch looks every 20 ms, so memory seen there that
 * ends the run before the next look grew faster than the watch looks, which is what the ceiling
 * is for: an allocation past it was refused and that ended the run (a Node process aborts, exit
 * 134; others exit as they do when memory is refused). The look that counts is the latest, or the
 * one before it when the latest came after the process had ended (the sandbox's pid 1 outlives
 * its command a moment). null for every other end, and for a run that failed while its memory was
 * falling.
 */
export function ceilingHit(looks: readonly Sample[], exitCode: number | null, limits: SandboxLimits): LimitHit | null {
  if (exitCode === null || exitCode === 0) return null;
  for (const i of [looks.length - 1, looks.length - 2]) {
    const seen = looks[i];
    const before = looks[i - 1];
    if (seen === undefined || before === undefined) continue;
    // Falling is more than a collector's breath (a 64th of the limit): a Node process holding its memory still moves by a few pages.
    const falling = seen.memory < before.memory - limits.memory / 64;
    if (seen.memory * 2 > limits.memory && !falling) return { limit: "memory", of: limits.memory, seen: seen.memory, by: "ceiling" };
  }
  return null;
}

/** Watches `sandbox` until it is gone or the watch is stopped; calls `onHit` once. */
export function watchLimits(options: {
  readonly sandbox: Sandboxed;
  readonly limits: SandboxLimits;
  readonly onHit: (hit: LimitHit) => void;
  readonly fs?: WatchFs;
}): LimitWatch {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let looks = 0;
  const last: Sample[] = [];
  const look = async () => {
    const seen = await sample(options.sandbox, options.fs);
    if (stopped || seen === null) return;
    if (seen === "not_yet") {
      timer = setTimeout(() => void look(), FAST_MS);
      return;
    }
    if (last.push(seen) > 3) last.shift();
    const hit = judge(seen, options.limits);
    if (hit !== null) {
      stopped = true;
      options.onHit(hit);
      return;
    }
    timer = setTimeout(() => void look(), nextDelay(seen, options.limits, looks++));
  };
  timer = setTimeout(() => void look(), FAST_MS);
  return {
    stop: () => {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
    },
    last: () => last,
  };
}
