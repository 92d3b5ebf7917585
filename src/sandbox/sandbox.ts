/**
 * The sandbox port (docs/architecture.md, STYLE.md 13): every untrusted process — an agent, the
 * planner, the review agent, an item's `verify`, the queue's `verify` — runs through one
 * `Sandbox`, in a work directory (work-dir.ts). Two adapters: bubblewrap (bwrap.ts), and an
 * explicit unsandboxed one (unsandboxed.ts) whose description says why it is used.
 */
import type { LimitHit, SandboxLimits } from "./limits.ts";
import type { WorkDir } from "./work-dir.ts";

/**
 * What the command may reach of the network: `true`, the internet but not the host (its loopback,
 * abstract unix sockets, its own addresses, the LAN, a cloud's metadata service) where the
 * sandbox has a network of its own to give (see Sandbox.network), else the host's network;
 * `"host"`, the host's network, chosen; `false`, none at all.
 */
export type NetworkChoice = boolean | "host";

export interface SandboxRun {
  /** A command line, run with `sh -c` in the work directory. */
  readonly command: string;
  readonly workDir: WorkDir;
  /**
   * The whole environment of the command (built from the allowlist of docs/architecture.md; nothing
   * else of naruto's reaches it). The sandbox sets HOME and TMPDIR to private folders.
   */
  readonly env: Readonly<Record<string, string>>;
  /** What the command may reach of the network (agents call their model). */
  readonly network: NetworkChoice;
  /**
   * The endpoints (URLs) the command was given to call: its model API, a gateway, a proxy. In a
   * network of its own, one on this machine or its LAN is carried in, that host:port alone
   * (reach.ts); elsewhere they change nothing.
   */
  readonly reach?: readonly string[];
  /** More absolute paths the command sees, read-only (where an agent's CLI is installed). */
  readonly readOnly?: readonly string[];
  /**
   * Links made where the command looks for its programs: a CLI's name on PATH pointing at its
   * real file, whose folder `readOnly` shows (see executables.ts); the folder the name is in is
   * not shown.
   */
  readonly links?: readonly { readonly path: string; readonly target: string }[];
  /**
   * Files naruto made fresh for the command to write (its result, the planner's plan: see
   * run-files.ts), in the work directory's `io/`, which the command sees read-only: each is bound
   * read-write on its own, so the command can fill it but not put a link, a pipe or a folder in
   * its place, and it belongs to the user the command runs as.
   */
  readonly outputs?: readonly string[];
  readonly timeoutMs: number;
  /** What the command may take of the machine (default DEFAULT_LIMITS); only the sandbox applies them. */
  readonly limits?: SandboxLimits;
  /** Between SIGTERM and SIGKILL on timeout or cancel. Default 5 s. */
  readonly killGraceMs?: number;
  /** Output kept: default 1 MiB (head and tail). */
  readonly outputLimitBytes?: number;
  /** Every chunk of output as it arrives; unbounded. */
  readonly onOutput?: (chunk: Buffer) => void;
  /** Aborting stops the command (cancel, shutdown). */
  readonly signal?: AbortSignal;
}

/** A process the command left running after it exited, found and killed. */
export interface Leftover {
  readonly pid: number;
  readonly command: string;
  /**
   * How it was found: it still carried the command's tracking variable, or it had dropped it
   * (a cleared environment in a session of its own) and was found by its working directory.
   */
  readonly found: "tracking_variable" | "working_directory";
}

export interface ProcessRun {
  /** Null when it was killed by a signal or never started. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  /** The limit that ended it (see limits.ts); null when none did. */
  readonly limit: LimitHit | null;
  /** Why the command could not be started at all; null when it ran. */
  readonly startFailed: string | null;
  readonly durationMs: number;
  /** stdout and stderr interleaved, bounded. */
  readonly output: string;
  readonly outputBytes: number;
  readonly outputTruncated: boolean;
  /** What the command left running and naruto killed (always empty inside bubblewrap, where all of it dies with the sandbox). */
  readonly leftovers: readonly Leftover[];
}

/**
 * What `network: true` gets here: a network of the command's own (`isolated`, through the named
 * user-mode stack), or the host's network, with the reason (said once, like the sandbox itself).
 */
export type NetworkSupport =
  /** `via`: `slirp4netns 1.2.0, the internet without the host`, for the job log. */
  | { readonly kind: "isolated"; readonly via: string /** What it lets through here (said once), or null. */; readonly gap?: string | null }
  | { readonly kind: "host"; readonly reason: string };

export interface Sandbox {
  readonly kind: "bwrap" | "none";
  /**
   * For the terminal, the report and the result: `bwrap 0.8.0`, or `none (bwrap not found)`
   * (what the network is: {@link Sandbox.network}).
   */
  readonly description: string;
  /**
   * Commands run as root on the host, with nothing around them: `sandbox: none` chosen by a
   * naruto running as root. The arbiter then never approves (docs/architecture.md). Inside bubblewrap
   * a command is never root (sandbox-user.ts).
   */
  readonly runsAsRoot: boolean;
  /** What `network: true` gets (without the sandbox: the host's network). */
  readonly network: NetworkSupport;
  run(request: SandboxRun): Promise<ProcessRun>;
  /**
   * Why `network: true` here could not carry these endpoints (SandboxRun.reach) into the command's
   * network: the refusal `run` would start with, asked before anything is made; null when they
   * can be, or need not be (no network of its own).
   */
  refusedReach(urls: readonly string[]): Promise<string | null>;
}
