/**
 * Workflow dispatch and runs: how the App and the `integrate` job start Actions work.
 */
import { ConflictError, OutcomeUnknownError } from "./errors.ts";
import { mapError } from "./adapter-context.ts";
import { checkDispatchInputs } from "./limits.ts";
import { ONCE, UnansweredWriteError } from "./octokit-client.ts";
import type { AdapterContext } from "./adapter-context.ts";
import type { GitHubPort, WorkflowJob } from "./port.ts";

type ActionsPart = Pick<GitHubPort, "dispatchWorkflow" | "getRun" | "listJobs" | "cancelRun">;

export function actionsPart(ctx: AdapterContext): ActionsPart {
  const { octokit, repo, call } = ctx;
  return {
    async dispatchWorkflow({ workflow, ref, inputs }) {
      checkDispatchInputs(inputs);
      const operation = `dispatch ${workflow} on ${ref}`;
      try {
        const response = await octokit.rest.actions.createWorkflowDispatch({ ...repo, workflow_id: workflow, ref, inputs, return_run_details: true, request: ONCE });
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
          throw new OutcomeUnknownError({ operation, status: null, message: "no usable answer; the run may or may not have started: the sweep reconciles attempts without a run", cause: error.cause });
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
          (j): WorkflowJob => ({ id: j.id, name: j.name, status: j.status, conclusion: j.conclusion, url: j.html_url, startedAt: j.started_at ?? null, completedAt: j.completed_at ?? null }),
        );
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
