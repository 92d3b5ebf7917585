import type { RepoPath } from "../plan/index.ts";
import type { Cron } from "./cron.ts";
import type { PresetName } from "./presets.ts";
import type { AllowName, Permission, SandboxMode } from "./schema.ts";

/** An agent profile after defaults and presets are applied. */
export interface AgentProfile {
  readonly name: string;
  /** Run with `sh -c` in the worker's work tree. */
  readonly command: string;
  /** Per attempt, in milliseconds. */
  readonly timeout: number;
  /** Names of the runner's variables passed through (see env-policy.ts for what else is). */
  readonly env: readonly string[];
  readonly description: string | null;
  /** The preset the command came from, if any. */
  readonly preset: PresetName | null;
  /** What the agent reaches of the network: the internet without the host (true), the host's network, or none. */
  readonly network: boolean | "host";
  /** More paths the agent sees read-only in the sandbox (absolute, or `~/…`). */
  readonly read: readonly string[];
  /** Programs the command runs, found on PATH and shown read-only in the sandbox (a preset's CLI). */
  readonly executables: readonly string[];
  /** The agent gets a copy of its preset CLI's login on this machine (src/agent/cli-login.ts). */
  readonly login: boolean;
}

/** A mission the sweep starts on a schedule (`schedules:`). */
export interface Schedule {
  readonly name: string;
  readonly cron: Cron;
  /** The request; null when only `plan` is given (the plan's title is then the task). */
  readonly task: string | null;
  /** A plan file in the repository; null: the planner agent plans the task. */
  readonly plan: string | null;
  readonly approval: boolean;
}

/**
 * `.github/naruto.yml` after validation: every default filled in, durations in milliseconds,
 * protected paths normalized, profile references checked. Keys are the file's keys.
 */
export interface Config {
  readonly version: 1;
  /** Always holds `default` and the presets by name, plus the file's own profiles. */
  readonly agents: Readonly<Record<string, AgentProfile>>;
  readonly planner: { readonly agent: string };
  /** `agent` is null when no review agent runs (the policy rules always do). */
  readonly arbiter: { readonly agent: string | null };
  readonly queue: {
    readonly verify: string | null;
    readonly batch: number;
    readonly env: readonly string[];
    /** JUnit XML path or glob the verify writes (relative to the repository root); null: none read. */
    readonly verify_report: string | null;
    /** A red base stops integration, or (`compare`) batches are judged against its failures. */
    readonly red_base: "stop" | "compare";
    readonly confirm_runs: number;
    readonly max_flips: number;
    /** `on_push`: the App also refreshes a finished mission's queue when its base branch moves (issue 37). */
    readonly refresh: "manual" | "on_push";
  };
  readonly limits: {
    readonly max_parallel: number;
    readonly max_attempts: number;
    /** Milliseconds, from when the attempt's job starts. */
    readonly item_timeout: number;
    /** Milliseconds an attempt may wait for a runner before its job starts. */
    readonly queue_timeout: number;
    /** Milliseconds. */
    readonly mission_timeout: number;
    readonly max_items: number;
    readonly max_cost_usd: number | null;
    readonly min_permission: Permission;
    /** Bytes: the largest blob the gate lets through. */
    readonly max_file_size: number;
    /** Processes and threads of one sandboxed command at once. */
    readonly agent_processes: number;
    /** Bytes of memory one sandboxed command's processes may hold together. */
    readonly agent_memory: number;
    /** Bytes: the largest file a sandboxed command may write. */
    readonly agent_file_size: number;
    /** Bytes of its /tmp and of its /dev/shm. */
    readonly agent_tmp_size: number;
  };
  readonly protected: readonly RepoPath[];
  readonly allow_protected: boolean;
  /** What the gate lets agents change beyond plain files (docs/architecture.md). */
  readonly allow: readonly AllowName[];
  readonly allow_bots: readonly string[];
  readonly approval: boolean;
  readonly schedules: readonly Schedule[];
  readonly sandbox: SandboxMode;
  /** Where work directories are made; null: the per-user cache (see src/sandbox/work-dir.ts). */
  readonly workdir: string | null;
}

/** One problem in a config file: `path` is the field, like `limits.max_parallel` or `agents.x.env[0]`. */
export interface ConfigError {
  readonly path: string;
  readonly message: string;
  /** Line in the file (1-based), when the field is in it. */
  readonly line?: number;
}

export type LoadConfigResult = { ok: true; config: Config } | { ok: false; errors: readonly ConfigError[] };
