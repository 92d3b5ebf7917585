/**
 * Per-agent limits (docs/architecture.md): what one sandboxed command may take of the machine, and how a
 * run that reached one says so. Inside bubblewrap (bwrap.ts):
 *
 * - **processes** — `RLIMIT_NPROC`, set inside the sandbox (`prlimit`) before the command starts.
 *   The kernel counts it per user *of a user namespace*, so it counts the sandbox's processes and
 *   threads only, and a user namespace the agent makes inherits it as its ceiling. naruto also
 *   watches the count (limit-watch.ts): reaching the limit stops the run, as a fork bomb would
 *   otherwise spin against it until its timeout.
 * - **memory** — naruto adds up the private memory resident in the sandbox's processes
 *   (limit-watch.ts) and stops the run when it passes the limit; no one process may commit more
 *   than twice the limit (`RLIMIT_DATA`), so a single giant allocation fails at once instead of
 *   outrunning the watch. A run that fails right after the watch saw its memory past half the
 *   limit (and not falling) grew to that ceiling between two looks: it reached the memory limit
 *   too, and says so (limit-watch.ts, `ceilingHit`). `/tmp` and `/dev/shm` are memory too: each is a tmpfs of `tmp` bytes.
 * - **file size** — `RLIMIT_FSIZE`: a write past it fails and sends SIGXFSZ, which ends the
 *   writer unless it ignores the signal (Node and Python do, and see `EFBIG`). A run whose command
 *   SIGXFSZ ended reports the limit. In the work tree, a file cut at the limit is larger than
 *   `max_file_size` (config makes sure of it), so the gate refuses it by name.
 *
 * A user namespace is what makes the process count per sandbox: without one (naruto as root where
 * bwrap cannot make one) the kernel does not count root's processes, and only the watch stops a
 * fork bomb. Without the sandbox no limit applies.
 */
import { formatSize } from "../config/index.ts";

export interface SandboxLimits {
  /** Processes and threads at once. */
  readonly processes: number;
  /** Bytes of private memory resident in the command's processes together. */
  readonly memory: number;
  /** Bytes: the largest file the command may write. */
  readonly fileSize: number;
  /** Bytes of `/tmp`, and of `/dev/shm`, each a tmpfs in memory. */
  readonly tmp: number;
}

/** The config's defaults (src/config/schema.ts). */
export const DEFAULT_LIMITS: SandboxLimits = { processes: 1024, memory: 8 * 1024 ** 3, fileSize: 1024 ** 3, tmp: 1024 ** 3 };

/** A limit a run reached; it ended the run. */
export type LimitHit =
  | { readonly limit: "processes"; readonly of: number; readonly seen: number }
  | {
      readonly limit: "memory";
      readonly of: number;
      readonly seen: number;
      /**
       * `watch`: naruto saw `seen` past the limit and stopped the run; `ceiling`: the run ended at
       * the per-process ceiling (`RLIMIT_DATA`) right after naruto saw `seen`, past half the limit
       * (limit-watch.ts, `ceilingHit`).
       */
      readonly by: "watch" | "ceiling";
    }
  | { readonly limit: "file_size"; readonly of: number };

/** The config field that sets each limit, for messages. */
export const LIMIT_FIELDS = { processes: "limits.agent_processes", memory: "limits.agent_memory", file_size: "limits.agent_file_size" } as const;

/** Exit status 128 + SIGXFSZ: how bwrap and the shell report a command that signal ended. */
export const SIGXFSZ_EXIT = 128 + 25;

/** The `prlimit` options that set the kernel's side of `limits` on the command it then runs. */
export function prlimitArgs(limits: SandboxLimits): string[] {
  return [`--nproc=${limits.processes}`, `--fsize=${limits.fileSize}`, `--data=${2 * limits.memory}`];
}

/**
 * Why a run stopped at a limit, with what to do about it.
 *
 * @example describeLimitHit({ limit: "memory", of: 2 ** 30, seen: 1.1 * 2 ** 30 })
 *   → "the agent reached its memory limit (limits.agent_memory: 1GiB; its processes held 1.1 GiB) …"
 */
export function describeLimitHit(hit: LimitHit, who = "the agent"): string {
  const field = LIMIT_FIELDS[hit.limit];
  const raise = `naruto stopped it; if the work needs more, raise ${field} in .github/naruto.yml`;
  switch (hit.limit) {
    case "processes":
      return `${who} reached its process limit (${field}: ${hit.of}; it had ${hit.seen} processes and threads): ${raise}`;
    case "memory":
      if (hit.by === "ceiling")
        return `${who} reached its memory limit (${field}: ${formatSize(hit.of)}; its processes held ${gib(hit.seen)} when naruto last looked and grew on faster than it looks: the kernel refused memory past twice the limit, each process's ceiling, and that ended it): if the work needs more, raise ${field} in .github/naruto.yml`;
      return `${who} reached its memory limit (${field}: ${formatSize(hit.of)}; its processes held ${gib(hit.seen)}): ${raise}`;
    case "file_size":
      return `${who} reached its file size limit (${field}: ${formatSize(hit.of)}): a file it wrote grew past it and SIGXFSZ ended it; if the work needs larger files, raise ${field} in .github/naruto.yml`;
  }
}

function gib(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${Math.round(bytes / 1024 ** 2)} MiB`;
}
