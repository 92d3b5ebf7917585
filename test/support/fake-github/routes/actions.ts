/**
 * Workflow dispatch (recorded for the Actions simulator), workflow runs, their jobs, and
 * cancellation. Runs and jobs only change through the test hooks (`setRunStatus`, `setJob`)
 * and cancellation: nothing here runs a workflow.
 */
import { actorOf } from "../auth.ts";
import { GitHubError, notFound, unprocessable } from "../errors.ts";
import { ok, paginate, type RepoContext, type RepoRoute } from "../route.ts";
import { repoApi } from "../shapes.ts";
import { jobShape, runShape } from "../shapes-actions.ts";
import { knowsRunDetails, type RunState } from "../state.ts";
import { readWorkflow, resolveInputs } from "../workflows.ts";

function runOf(ctx: RepoContext): RunState {
  const run = ctx.repo.runs.get(Number(ctx.params["run_id"]));
  if (run === undefined) throw notFound();
  return run;
}

export const actionRoutes: readonly RepoRoute[] = [
  {
    op: "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
    access: { role: "write", app: ["actions:write"] } as const,
    handle: async (ctx) => {
      // GitHub Enterprise Server 3.20 and older: the field is not in their description (cli/cli#12672).
      if (ctx.body["return_run_details"] !== undefined && !knowsRunDetails(ctx.world)) {
        throw new GitHubError(400, 'Invalid request.\n\n"return_run_details" is not a permitted key.');
      }
      const workflowName = ctx.params["workflow_id"] ?? "";
      const defaultHead = await ctx.git.resolveCommit(ctx.repo.defaultBranch);
      // The workflow must exist on the default branch; the run uses the file at `ref`.
      const onDefault = defaultHead === null ? null : await readWorkflow(ctx.git, ctx.repo, defaultHead, workflowName);
      if (onDefault === null) throw notFound();
      const ref = String(ctx.body["ref"]).replace(/^refs\/(heads|tags)\//, "");
      const sha = await ctx.git.resolveCommit(ref);
      if (sha === null) throw unprocessable(`No ref found for: ${String(ctx.body["ref"])}`);
      const workflow = (await readWorkflow(ctx.git, ctx.repo, sha, onDefault.path.split("/").at(-1) ?? "")) ?? onDefault;
      const inputs = resolveInputs(workflow, (ctx.body["inputs"] ?? {}) as Record<string, unknown>);
      const headCommit = await ctx.git.readCommit(sha);
      if (headCommit === null) throw new Error(`${sha} resolved from ${ref} but is no commit`);
      const now = ctx.world.now();
      const actor = actorOf(ctx.principal, ctx.world);
      const run: RunState = {
        id: ctx.world.nextId(),
        workflowId: workflow.id,
        workflowPath: workflow.path,
        workflowName: workflow.name,
        headBranch: ref,
        headSha: sha,
        headCommit,
        event: "workflow_dispatch",
        status: "queued",
        conclusion: null,
        runNumber: ctx.repo.nextRunNumber++,
        runAttempt: 1,
        displayTitle: null,
        createdAt: now,
        updatedAt: now,
        actor,
        jobs: [],
      };
      ctx.repo.runs.set(run.id, run);
      ctx.world.dispatches.push({
        owner: ctx.repo.owner.login,
        repo: ctx.repo.name,
        workflow: workflow.path,
        workflowId: workflow.id,
        ref,
        sha,
        inputs,
        runId: run.id,
        actor: actor.login,
        at: now,
      });
      if (ctx.body["return_run_details"] !== true) return { status: 204 };
      return ok({
        workflow_run_id: run.id,
        run_url: `${repoApi(ctx.urls, ctx.repo)}/actions/runs/${run.id}`,
        html_url: `${ctx.urls.web}/${ctx.repo.fullName}/actions/runs/${run.id}`,
      });
    },
  },
  {
    op: "GET /repos/{owner}/{repo}/actions/runs/{run_id}",
    access: { role: "read", app: ["actions:read"] } as const,
    handle: (ctx) => ok(runShape(ctx.urls, ctx.repo, runOf(ctx))),
  },
  {
    op: "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs",
    access: { role: "read", app: ["actions:read"] } as const,
    handle: (ctx) => {
      const run = runOf(ctx);
      const page = paginate({
        items: run.jobs.map((job) => jobShape(ctx.urls, ctx.repo, run, job)),
        query: ctx.query,
        selfUrl: `${repoApi(ctx.urls, ctx.repo)}/actions/runs/${run.id}/jobs`,
      });
      return { ...page, body: { total_count: run.jobs.length, jobs: page.body } };
    },
  },
  {
    op: "POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel",
    access: { role: "write", app: ["actions:write"] } as const,
    handle: (ctx) => {
      const run = runOf(ctx);
      if (run.status === "completed") throw new GitHubError(409, "Cannot cancel a workflow run that is completed.");
      const now = ctx.world.now();
      run.status = "completed";
      run.conclusion = "cancelled";
      run.updatedAt = now;
      for (const job of run.jobs) {
        if (job.status === "completed") continue;
        job.status = "completed";
        job.conclusion = "cancelled";
        job.completedAt = now;
      }
      return ok({}, 202);
    },
  },
];
