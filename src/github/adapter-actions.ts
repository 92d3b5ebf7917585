/**
 * Workflow dispatch and runs: how the App and the `integrate` job start Actions work.
 */
import { ConflictError, OutcomeUnknownError, RunDetailsUnsupportedError } from "./errors.ts";
import { mapError } from "./adapter-context.ts";
import { checkDispatchInputs } from "./limits.ts";
import { ONCE, UnansweredWriteError } from "./octokit-client.ts";
import type { AdapterContext } from "./adapter-context.ts";
import type { DispatchInputs } from "./limits.ts";
import type { GitHubPort, RunArtifact, WorkflowJob } from "./port.ts";

type ActionsPart = Pick<GitHubPort, "dispatchWorkflow" | "getRun" | "listJobs" | "cancelRun" | "listRunArtifacts" | "downloadArtifact">;

/**
 * What the adapter learned about the server's dispatch API, kept across the ports of one
 * installation and repository (the App keeps one per installation and repository; a job's port
 * has its own): `false` once the server refused `return_run_details`, so later dispatches leave
 * it out instead of being refused first.
 */
export interface DispatchMemory {
  runDetails: boolean;
}

export function createDispatchMemory(): DispatchMemory {
  return { runDetails: true };
}

export function actionsPart(ctx: AdapterContext, memory: DispatchMemory = createDispatchMemory()): ActionsPart {
  const { octokit, repo, call } = ctx;
  const send = (p: { workflow: string; ref: string; inputs: DispatchInputs; runDetails: boolean }) =>
    octokit.rest.actions.createWorkflowDispatch({
      ...repo,
      workflow_id: p.workflow,
      ref: p.ref,
      inputs: p.inputs,
      ...(p.runDetails ? { return_run_details: true } : {}),
      request: ONCE,
    });
  return {
    async dispatchWorkflow({ workflow, ref, inputs }) {
      checkDispatchInputs(inputs);
      const operation = `dispatch ${workflow} on ${ref}`;
      try {
        let response: Awaited<ReturnType<typeof send>>;
        try {
          response = await send({ workflow, ref, inputs, runDetails: memory.runDetails });
        } catch (error) {
          // GitHub Enterprise Server 3.20 and older refuse the field (400), having dispatched
          // nothing: once more without it, and never with it again for this repository.
          if (!memory.runDetails || !(mapError(operation, error) instanceof RunDetailsUnsupportedError)) throw error;
          memory.runDetails = false;
          response = await send({ workflow, ref, inputs, runDetails: false });
        }
        // 200 with the run (github.com), or 204 and nothing (servers without return_run_details).
        const data: unknown = response.data;
        if (typeof data === "object" && data !== null && "workflow_run_id" in data && typeof data.workflow_run_id === "number") {
          const url = "html_url" in data && typeof data.html_url === "string" ? data.html_url : null;
          return { runId: data.workflow_run_id, runUrl: url };
        }
        return { runId: null, runUrl: null };
      } catch (error) {
        // A dispatch cannot be looked up afterwards, so it is never sent twice: the mission
        // state records the attempt as dispatched and the sweep times out one that never ran.
        if (error instanceof UnansweredWriteError) {
          throw new OutcomeUnknownError({
            operation,
            status: null,
            message: "no usable answer; the run may or may not have started: the sweep reconciles attempts without a run",
            cause: error.cause,
          });
        }
        throw mapError(operation, error);
      }
    },

    getRun: ({ runId }) =>
      call(`get run ${runId}`, async () => {
        const { data } = await octokit.rest.actions.getWorkflowRun({ ...repo, run_id: runId });
        return { id: data.id, status: data.status, conclusion: data.conclusion, url: data.html_url, headSha: data.head_sha, attempt: data.run_attempt ?? 1 };
      }),

    listJobs: ({ runId }) =>
      call(`list jobs of run ${runId}`, async () => {
        const jobs = await octokit.paginate(octokit.rest.actions.listJobsForWorkflowRun, { ...repo, run_id: runId, filter: "latest", per_page: 100 });
        return jobs.map(
          (j): WorkflowJob => ({
            id: j.id,
            name: j.name,
            status: j.status,
            conclusion: j.conclusion,
            url: j.html_url,
            startedAt: j.started_at ?? null,
            completedAt: j.completed_at ?? null,
            runAttempt: j.run_attempt ?? 1,
            steps: (j.steps ?? []).map((s) => ({
              number: s.number,
              name: s.name,
              status: s.status,
              conclusion: s.conclusion,
              startedAt: s.started_at ?? null,
              completedAt: s.completed_at ?? null,
            })),
          }),
        );
      }),

    listRunArtifacts: ({ runId }) =>
      call(`list artifacts of run ${runId}`, async () => {
        const artifacts = await octokit.paginate(octokit.rest.actions.listWorkflowRunArtifacts, { ...repo, run_id: runId, per_page: 100 });
        return artifacts.map(
          (a): RunArtifact => ({
            id: a.id,
            name: a.name,
            sizeInBytes: a.size_in_bytes,
            digest: a.digest ?? null,
            createdAt: a.created_at,
            expired: a.expired,
            runId: a.workflow_run?.id ?? null,
          }),
        );
      }),

    downloadArtifact: ({ artifactId }) =>
      call(`download artifact ${artifactId}`, async () => {
        // GitHub answers 302 to a signed blob link; fetch follows it (and drops the token on the way to another host).
        const { data } = await octokit.rest.actions.downloadArtifact({ ...repo, artifact_id: artifactId, archive_format: "zip" });
        if (data instanceof ArrayBuffer) return new Uint8Array(data);
        throw new Error(`the download of artifact ${artifactId} is not a zip`);
      }),

    async cancelRun({ runId }) {
      try {
        // Cancelling is idempotent, so plugin-retry may repeat it after a 5xx.
        await call(`cancel run ${runId}`, () => octokit.rest.actions.cancelWorkflowRun({ ...repo, run_id: runId }));
        return true;
      } catch (error) {
        // 409: the run has finished; there is nothing left to cancel.
        if (error instanceof ConflictError) return false;
        throw error;
      }
    },
  };
}
