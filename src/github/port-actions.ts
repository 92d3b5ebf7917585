/**
 * The port's records of GitHub Actions: workflow runs, their jobs and steps, their artifacts, and
 * what dispatching a workflow returns (port.ts re-exports them).
 */
export interface WorkflowRun {
  readonly id: number;
  readonly status: string | null;
  readonly conclusion: string | null;
  readonly url: string;
  readonly headSha: string;
  readonly attempt: number;
}

export interface WorkflowJob {
  readonly id: number;
  readonly name: string;
  readonly status: string;
  readonly conclusion: string | null;
  readonly url: string | null;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  /** The run attempt the job belongs to (GitHub's re-runs make new attempts). */
  readonly runAttempt: number;
  /** Its steps as GitHub shows them: the ones started or done so far, with their times. */
  readonly steps: readonly WorkflowStep[];
}

export interface WorkflowStep {
  readonly number: number;
  readonly name: string;
  readonly status: string;
  readonly conclusion: string | null;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
}

/** One artifact of a workflow run, as the REST API lists it. */
export interface RunArtifact {
  readonly id: number;
  readonly name: string;
  readonly sizeInBytes: number;
  /** `sha256:<hex>` of its zip as upload-artifact v4 reported it; null for older uploads. */
  readonly digest: string | null;
  readonly createdAt: string | null;
  readonly expired: boolean;
  /** The run it belongs to, as GitHub says. */
  readonly runId: number | null;
}

export interface DispatchResult {
  /** The run started, when GitHub returns it (`return_run_details`); null on older servers. */
  readonly runId: number | null;
  readonly runUrl: string | null;
}
