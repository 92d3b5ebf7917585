/** What the simulator reports about runs, jobs and steps, and what a step implementation gets. */
import type { AppPermissions } from "../fake-github/state.ts";
import type { Annotation, ProcessedCommand } from "./file-commands.ts";
import type { Machine } from "./machine.ts";

export type Conclusion = "success" | "failure" | "cancelled" | "skipped";

export interface StepResult {
  readonly name: string;
  readonly id: string | null;
  /** `uses:` or `run` for a script step. */
  readonly kind: string;
  /** Before `continue-on-error`. */
  readonly outcome: Conclusion;
  readonly conclusion: Conclusion;
  readonly outputs: Readonly<Record<string, string>>;
  /** What the step wrote to `GITHUB_ENV`: the environment of the job's later steps. */
  readonly envAdded: Readonly<Record<string, string>>;
  /** Output of the step's processes (masked) and the simulator's own notes. */
  readonly log: string;
  readonly annotations: readonly Annotation[];
  /** The workflow commands the runner acted on, in order (see file-commands.ts). */
  readonly commands: readonly ProcessedCommand[];
  readonly summary: string;
}

export interface JobResult {
  /** The job's id in the workflow. */
  readonly job: string;
  /** Display name, `work (a, 1)` for a matrix leg. */
  readonly name: string;
  readonly matrix: Readonly<Record<string, unknown>> | null;
  readonly result: Conclusion;
  /** Why the job was skipped, failed before its steps, or was cancelled. */
  readonly reason: string | null;
  readonly outputs: Readonly<Record<string, string>>;
  readonly steps: readonly StepResult[];
  /** The permissions of the job's token (null when it got none: a skipped job). */
  readonly permissions: AppPermissions | null;
  /** Processes still running when the job ended, killed with its machine. */
  readonly orphansKilled: number;
  readonly concurrencyGroup: string | null;
  /** The labels of its `runs-on` (absent: the job never got as far as a runner). */
  readonly runsOn?: readonly string[];
  /** The runner that ran it. */
  readonly runner?: string;
}

export interface RunResult {
  readonly id: number;
  /**
   * The run's title as GitHub shows it (`display_title`): `run-name:` evaluated, else the
   * workflow's name.
   */
  readonly title: string;
  readonly event: string;
  readonly inputs: Readonly<Record<string, string>>;
  readonly conclusion: Conclusion;
  readonly jobs: readonly JobResult[];
}

/** The values of the `github` context a step implementation needs. */
export interface GitHubFacts {
  readonly repository: string;
  readonly ref: string;
  readonly sha: string;
  readonly serverUrl: string;
  readonly eventName: string;
}

/** What a standard action's implementation gets. */
export interface StepContext {
  readonly machine: Machine;
  /** The step's environment as the runner builds it (GITHUB_*, RUNNER_*, INPUT_* not included). */
  readonly env: Readonly<Record<string, string>>;
  readonly workspace: string;
  /** The job's folder: everything of its machine that the simulator may read. */
  readonly jobDir: string;
  readonly token: string;
  readonly github: GitHubFacts;
  readonly runId: number;
  /** The job's `ACTIONS_RUNTIME_TOKEN` and the results service it opens (artifact uploads, this run's downloads). */
  readonly runtime: { readonly token: string; readonly resultsUrl: string };
  /** Gives the job's user the files the simulator wrote (a download) under `path`. */
  chown(path: string): Promise<void>;
}

/** What a step implementation answers. */
export interface StepOutcome {
  readonly ok: boolean;
  readonly log: string;
  readonly outputs?: Readonly<Record<string, string>>;
}
