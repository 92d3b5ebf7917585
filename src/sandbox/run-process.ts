/**
 * The life of one contained process, the same under either adapter: it starts as the leader of
 * its own process group, stdin on /dev/null (a command waiting for input would hang), output
 * interleaved and bounded; on timeout or cancel the whole group gets SIGTERM, then SIGKILL after
 * the grace period; when the leader exits, whatever it left in the group is stopped the same way.
 * What it left outside the group is the adapter's to find (`sweep`). An adapter may also attach
 * to the process before its command runs (`attach`: bubblewrap's network and limit watch), and a
 * limit it watches stops the run at once. POSIX only.
 */
import { spawn as nodeSpawn, type ChildProcess, type StdioPipe } from "node:child_process";
import type { LimitHit } from "./limits.ts";
import { createOutputBuffer } from "./output-buffer.ts";
import type { Leftover, ProcessRun, SandboxRun } from "./sandbox.ts";

export interface ProcessDeps {
  readonly spawn?: (
    file: string,
    args: string[],
    options: { cwd: string; env: Record<string, string>; stdio: ["ignore", "pipe", "pipe", ...StdioPipe[]]; detached: true },
  ) => ChildProcess;
  /** Sends a signal; a negative pid is a process group. */
  readonly kill?: (pid: number, signal: NodeJS.Signals) => void;
  readonly now?: () => number;
}

export interface Launch {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** After the process and its group are gone: find and kill what escaped the group. */
  readonly sweep?: () => Promise<readonly Leftover[]>;
  /** Pipes the process gets beyond stdin, stdout and stderr, as fds 3, 4, …: the adapter's own channels to it. */
  readonly channels?: number;
  /**
   * Runs once the process has started: the adapter's part of the start (bubblewrap's network, the
   * limit watch). `stop` ends the run at a limit, at once. A start that failed (`failed`) stops
   * the process and is the run's `startFailed`; `detach` is called once the process is gone.
   */
  readonly attach?: (child: ChildProcess, stop: (hit: LimitHit) => void) => Promise<Attachment>;
}

export interface Attachment {
  /** Why the adapter's part of the start failed; null when it did not. */
  readonly failed: string | null;
  detach(): Promise<void>;
}

/** A run whose command never started, for `reason`. */
export function notStarted(reason: string): ProcessRun {
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: false,
    startFailed: reason,
    limit: null,
    durationMs: 0,
    output: "",
    outputBytes: 0,
    outputTruncated: false,
    leftovers: [],
  };
}

// Longer timers overflow and fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Runs `launch` under the limits of `request`; never throws for anything the process does. */
export async function runProcess(launch: Launch, request: SandboxRun, deps: ProcessDeps = {}): Promise<ProcessRun> {
  const spawn = deps.spawn ?? nodeSpawn;
  const kill = deps.kill ?? ((pid, signal) => void process.kill(pid, signal));
  const now = deps.now ?? Date.now;
  const grace = request.killGraceMs ?? 5000;
  const output = createOutputBuffer(request.outputLimitBytes ?? 1024 * 1024);
  const started = now();

  // Set once the process started, when the adapter attaches to it.
  const attached: { promise: Promise<Attachment> | null } = { promise: null };
  const end = await new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    timedOut: boolean;
    cancelled: boolean;
    startFailed: string | null;
    limit: LimitHit | null;
  }>((resolve) => {
    let timedOut = false;
    let cancelled = false;
    let startFailed: string | null = null;
    let limit: LimitHit | null = null;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let done = false;
    const timers: NodeJS.Timeout[] = [];

    const channels: StdioPipe[] = Array.from({ length: launch.channels ?? 0 }, () => "pipe");
    const child = spawn(launch.file, [...launch.args], { cwd: launch.cwd, env: launch.env, stdio: ["ignore", "pipe", "pipe", ...channels], detached: true });
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
      request.signal?.removeEventListener("abort", onAbort);
      killGroup("SIGKILL");
      resolve({ code: exit?.code ?? null, signal: exit?.signal ?? null, timedOut, cancelled, startFailed, limit });
    };
    const onAbort = () => {
      if (exit !== null || done) return;
      cancelled = true;
      stopGroup();
    };

    timers.push(
      setTimeout(
        () => {
          if (exit !== null || done) return;
          timedOut = true;
          stopGroup();
        },
        Math.min(request.timeoutMs, MAX_TIMER_MS),
      ),
    );
    request.signal?.addEventListener("abort", onAbort, { once: true });
    if (request.signal?.aborted) onAbort();
    if (launch.attach && child.pid !== undefined) {
      const attachment = launch.attach(child, (hit) => {
        if (exit !== null || done || limit !== null) return;
        limit = hit;
        killGroup("SIGKILL");
      });
      attached.promise = attachment.catch((error: unknown) => ({
        failed: error instanceof Error ? error.message : String(error),
        detach: async () => undefined,
      }));
      void attached.promise.then((a) => {
        if (a.failed === null || exit !== null || done) return;
        startFailed = a.failed;
        killGroup("SIGKILL");
      });
    }

    const onData = (chunk: Buffer) => {
      output.push(chunk);
      request.onOutput?.(chunk);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("error", (error) => {
      startFailed = error.message;
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

  await (await attached.promise)?.detach();
  const leftovers = (await launch.sweep?.()) ?? [];
  return {
    exitCode: end.code,
    signal: end.signal,
    timedOut: end.timedOut,
    cancelled: end.cancelled,
    startFailed: end.startFailed,
    limit: end.limit,
    durationMs: now() - started,
    output: output.text(),
    outputBytes: output.bytes,
    outputTruncated: output.truncated,
    leftovers,
  };
}
