import { spawn as nodeSpawn, type ChildProcess } from "node:child_process";
import { constants } from "node:fs";
import { mkdir, open, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { buildAgentEnv, type AttemptVars } from "./agent-env.ts";
import { killLeftovers, newTrackingValue, TRACKING_ENV } from "./leftovers.ts";
import { parseAgentResult, type AgentResult } from "./agent-result.ts";
import { createOutputBuffer } from "./output-buffer.ts";

/** How one attempt's agent ended. */
export type AgentOutcome =
  /** Exit code 0. Whether it changed anything is for the scope check to say. */
  | "exited"
  /** Killed at `timeoutMs`, with its whole process group. */
  | "timed_out"
  /** Non-zero exit, killed by a signal, or could not be started. */
  | "crashed"
  /** Stopped through `signal` (the mission was cancelled or the runner is shutting down). */
  | "cancelled";

export interface AgentRun {
  readonly outcome: AgentOutcome;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly durationMs: number;
  readonly timedOut: boolean;
  /** stdout and stderr interleaved, bounded (see output-buffer.ts). */
  readonly output: string;
  readonly outputBytes: number;
  readonly outputTruncated: boolean;
  /** The agent's `$NARUTO_RESULT_FILE`, when it wrote one. */
  readonly result: AgentResult | null;
  /** What a report should mention: an invalid result file, dropped variables, a failed start. */
  readonly notes: readonly string[];
}

/** The process-level outside world, injected so tests and other drivers can replace it. */
export interface RunAgentDeps {
  readonly spawn?: (file: string, args: string[], options: { cwd: string; env: Record<string, string>; stdio: ["ignore", "pipe", "pipe"]; detached: true }) => ChildProcess;
  /** Sends a signal; a negative pid is a process group. */
  readonly kill?: (pid: number, signal: NodeJS.Signals) => void;
  readonly now?: () => number;
}

export interface RunAgentOptions extends Omit<AttemptVars, "promptFile" | "resultFile"> {
  /** The profile's command, run with `sh -c`. */
  readonly command: string;
  /** The worker's work tree. */
  readonly cwd: string;
  /** The runner's environment; only basics and `allowEnv` names of it reach the agent. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly allowEnv: readonly string[];
  /** Written by the caller, outside the work tree (e.g. under `.git/naruto/attempts/`). */
  readonly promptFile: string;
  /** Outside the work tree; removed before the start so a stale result cannot be read. */
  readonly resultFile: string;
  readonly timeoutMs: number;
  /** Between SIGTERM and SIGKILL. Default 5 s. */
  readonly killGraceMs?: number;
  /** Default 1 MiB. */
  readonly outputLimitBytes?: number;
  /** Every chunk of output as it arrives (live progress, a log file); unbounded. */
  readonly onOutput?: (chunk: Buffer) => void;
  readonly signal?: AbortSignal;
  readonly deps?: RunAgentDeps;
}

const RESULT_FILE_LIMIT = 1024 * 1024;
// Longer timers overflow and fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs an agent for one attempt (DESIGN.md §8) and reports how it ended; never throws for
 * anything the agent does.
 *
 * The command runs with `sh -c` in the work tree as the leader of its own process group, stdin
 * on /dev/null (agents that wait for stdin would hang), with the environment of `buildAgentEnv`.
 * On timeout or cancel the whole group gets SIGTERM, then SIGKILL after `killGraceMs`. When the
 * leader exits, whatever it left running in the group is stopped the same way, so no process of
 * the attempt outlives it; a process that left the group with `setsid` is found by the agent's
 * tracking variable and killed too (leftovers.ts). POSIX only.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const spawn = options.deps?.spawn ?? nodeSpawn;
  const kill = options.deps?.kill ?? ((pid, signal) => void process.kill(pid, signal));
  const now = options.deps?.now ?? Date.now;
  const grace = options.killGraceMs ?? 5000;
  const output = createOutputBuffer(options.outputLimitBytes ?? 1024 * 1024);
  const { env, dropped } = buildAgentEnv({ from: options.env, allow: options.allowEnv, attempt: options });
  const tracking = newTrackingValue();
  env[TRACKING_ENV] = tracking;
  const notes = dropped.map((d) => `${d.name} was not passed to the agent: ${d.reason}`);

  await mkdir(dirname(options.resultFile), { recursive: true });
  await rm(options.resultFile, { force: true });

  const started = now();
  const end = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; timedOut: boolean; cancelled: boolean; failed: boolean }>((resolve) => {
    let timedOut = false;
    let cancelled = false;
    let failed = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let done = false;
    const timers: NodeJS.Timeout[] = [];

    const child = spawn("sh", ["-c", options.command], { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        kill(-child.pid, signal);
      } catch {
        // ESRCH: the group is already empty.
      }
    };
    // SIGTERM now, SIGKILL after the grace period; `then` runs after the SIGKILL.
    const stopGroup = (then?: () => void) => {
      killGroup("SIGTERM");
      timers.push(
        setTimeout(() => {
          killGroup("SIGKILL");
          then?.();
        }, grace),
      );
    };
    const finish = () => {
      if (done) return;
      done = true;
      timers.forEach(clearTimeout);
      options.signal?.removeEventListener("abort", onAbort);
      killGroup("SIGKILL");
      resolve({ code: exit?.code ?? null, signal: exit?.signal ?? null, timedOut, cancelled, failed });
    };
    const onAbort = () => {
      if (exit !== null || done) return;
      cancelled = true;
      stopGroup();
    };

    timers.push(
      setTimeout(() => {
        if (exit !== null || done) return;
        timedOut = true;
        stopGroup();
      }, Math.min(options.timeoutMs, MAX_TIMER_MS)),
    );
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    const onData = (chunk: Buffer) => {
      output.push(chunk);
      options.onOutput?.(chunk);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("error", (error) => {
      notes.push(`the agent could not be started: ${error.message}`);
      failed = true;
      if (child.pid === undefined) finish();
    });
    child.on("exit", (code, signal) => {
      if (done) return;
      exit = { code, signal };
      // Leftovers in the group may hold the output pipes open: stop them, then stop reading.
      stopGroup(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      });
    });
    child.on("close", finish);
  });

  const escaped = await killLeftovers(tracking, { kill });
  if (escaped.length > 0) notes.push(`killed ${escaped.length} process(es) the agent left running outside its process group`);
  const read = await readResultFile(options.resultFile);
  const parsed = parseAgentResult(read.text);
  return {
    outcome: end.cancelled ? "cancelled" : end.timedOut ? "timed_out" : end.code === 0 && !end.failed ? "exited" : "crashed",
    exitCode: end.code,
    signal: end.signal,
    durationMs: now() - started,
    timedOut: end.timedOut,
    output: output.text(),
    outputBytes: output.bytes,
    outputTruncated: output.truncated,
    result: parsed.result,
    notes: [...notes, ...read.notes, ...parsed.notes],
  };
}

async function readResultFile(path: string): Promise<{ text: string | null; notes: string[] }> {
  let handle;
  try {
    // Non-blocking: a FIFO left at the path must not stall the runner.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return { text: null, notes: [] };
  }
  try {
    if (!(await handle.stat()).isFile()) return { text: null, notes: ["the result file is not a regular file; ignored"] };
    const buffer = Buffer.alloc(RESULT_FILE_LIMIT + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > RESULT_FILE_LIMIT) return { text: null, notes: [`the result file is larger than ${RESULT_FILE_LIMIT} bytes; ignored`] };
    return { text: buffer.subarray(0, bytesRead).toString("utf8"), notes: [] };
  } catch (error) {
    return { text: null, notes: [`the result file could not be read: ${error instanceof Error ? error.message : String(error)}`] };
  } finally {
    await handle.close();
  }
}
