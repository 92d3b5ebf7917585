/**
 * Processes an agent left running outside its process group. The group is stopped when the agent
 * exits (run-agent.ts), but a process that called `setsid` (or was started by a double fork into
 * its own session) is no longer in it. On a runner such a process would live until the job ends,
 * through the steps that follow — and the upload and clean-up steps hold tokens. Like the Actions
 * runner's own `RUNNER_TRACKING_ID`, every agent gets a variable of its own with a value no other
 * process has; anything still running with it in its environment is killed.
 *
 * A process that re-executes itself with a cleared environment escapes this too; on GitHub the
 * job boundary remains the outer wall (templates/naruto.yml). Linux only (it reads /proc).
 */
import { randomBytes } from "node:crypto";
import { readdir, readFile, readlink } from "node:fs/promises";

/** The name of the tracking variable in an agent's environment. */
export const TRACKING_ENV = "NARUTO_AGENT_RUN";

export function newTrackingValue(): string {
  return randomBytes(12).toString("hex");
}

export interface LeftoverDeps {
  readonly kill: (pid: number, signal: NodeJS.Signals) => void;
  /** Folder of the process table (default /proc). */
  readonly proc?: string;
  /**
   * Only processes in another PID namespace than naruto's can hold the entry (what a sandbox
   * with its own namespace started): the others' environments are not read.
   */
  readonly elsewhere?: boolean;
}

/**
 * Kills (SIGKILL) every process whose environment holds `NARUTO_AGENT_RUN=<value>`, looking again
 * while it still finds some (a process may fork while its parent is killed). Returns the pids.
 */
export async function killLeftovers(value: string, deps: LeftoverDeps): Promise<number[]> {
  return killProcessesWithEnv(`${TRACKING_ENV}=${value}`, deps);
}

/** The running processes (not this one) whose environment holds exactly `entry` (`NAME=value`). */
export async function processesWithEnv(entry: string, options: { proc?: string; elsewhere?: boolean } = {}): Promise<number[]> {
  if (process.platform !== "linux" && options.proc === undefined) return [];
  const proc = options.proc ?? "/proc";
  const wanted = Buffer.from(`${entry}\0`);
  const found: number[] = [];
  const pids = (await readdir(proc).catch(() => [] as string[])).filter((name) => /^\d+$/.test(name)).map(Number);
  // One link read per process instead of its environment (a namespace naruto cannot read is not skipped).
  const own = options.elsewhere ? await readlink(`${proc}/self/ns/pid`).catch(() => null) : null;
  await eachProcess(pids, async (pid) => {
    if (own !== null && (await readlink(`${proc}/${pid}/ns/pid`).catch(() => null)) === own) return;
    const environ = await readFile(`${proc}/${pid}/environ`).catch(() => null);
    if (environ === null || !holds(environ, wanted) || (await exited(proc, pid))) return;
    found.push(pid);
  });
  return found.sort((a, b) => a - b);
}

/**
 * Kills (SIGKILL) every process whose environment holds `entry`, looking again while it still
 * finds some (a process may fork while its parent is killed). Returns the pids.
 */
export async function killProcessesWithEnv(entry: string, deps: LeftoverDeps): Promise<number[]> {
  const killed: number[] = [];
  for (let round = 0; round < 5; round++) {
    let found = 0;
    for (const pid of await processesWithEnv(entry, {
      ...(deps.proc === undefined ? {} : { proc: deps.proc }),
      ...(deps.elsewhere ? { elsewhere: true } : {}),
    })) {
      try {
        deps.kill(pid, "SIGKILL");
        found++;
        if (!killed.includes(pid)) killed.push(pid);
      } catch {
        // ESRCH: gone meanwhile.
      }
    }
    if (found === 0) break;
  }
  return killed;
}

/** How many processes' entries are read at once: the reads wait on the file system, not on each other, but each holds a file open, and a read that fails (too many open files) would skip its process. */
const AT_ONCE = 32;

/** Runs `look` for every process but this one, {@link AT_ONCE} at a time. */
async function eachProcess(pids: readonly number[], look: (pid: number) => Promise<void>): Promise<void> {
  const others = pids.filter((pid) => pid !== process.pid);
  for (let i = 0; i < others.length; i += AT_ONCE) await Promise.all(others.slice(i, i + AT_ONCE).map(look));
}

/** Whether NUL-separated `environ` has exactly the entry (not as the tail of another). */
function holds(environ: Buffer, entry: Buffer): boolean {
  return Buffer.concat([NUL, environ]).includes(Buffer.concat([NUL, entry]));
}

const NUL = Buffer.from([0]);

/** Whether the process is gone or a zombie (exited, waiting for its parent to read its status). */
async function exited(proc: string, pid: number): Promise<boolean> {
  const stat = await readFile(`${proc}/${pid}/stat`, "utf8").catch(() => "");
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "" || state === "Z" || state === "X";
}

/**
 * Running processes (not this one) whose working directory or root is `dir` or below it: what a
 * command left behind after clearing its environment (so the tracking variable is gone) without
 * leaving its work directory. Linux only; elsewhere none are found.
 */
export async function processesInside(dir: string, options: { proc?: string } = {}): Promise<{ pid: number; command: string }[]> {
  if (process.platform !== "linux" && options.proc === undefined) return [];
  const proc = options.proc ?? "/proc";
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  const found: { pid: number; command: string }[] = [];
  const pids = (await readdir(proc).catch(() => [] as string[])).filter((name) => /^\d+$/.test(name)).map(Number);
  await eachProcess(pids, async (pid) => {
    const places = await Promise.all(["cwd", "root"].map((link) => readlink(`${proc}/${pid}/${link}`).catch(() => null)));
    if (!places.some((p) => p !== null && (p === dir || p.startsWith(prefix)))) return;
    if (await exited(proc, pid)) return;
    const command = (await readFile(`${proc}/${pid}/cmdline`, "utf8").catch(() => ""))
      .split("\0")
      .filter((a) => a !== "")
      .join(" ");
    found.push({ pid, command });
  });
  found.sort((a, b) => a.pid - b.pid);
  return found;
}

/** The command line of a process, for a report ("" when it is gone). */
export async function commandOf(pid: number, options: { proc?: string } = {}): Promise<string> {
  const proc = options.proc ?? "/proc";
  return (await readFile(`${proc}/${pid}/cmdline`, "utf8").catch(() => ""))
    .split("\0")
    .filter((a) => a !== "")
    .join(" ");
}
