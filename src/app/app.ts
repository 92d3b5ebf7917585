/**
 * The naruto GitHub App (Probot 14, docs/action.md): `/naruto` comments start and steer missions
 * through the same `handleComment` as the Action's app-less mode, and naruto's runs keep the
 * tracking comment current. Handlers are short (a permission check, a reaction, a state write, a
 * dispatch) so webhooks are answered well within GitHub's 10 s; long work runs in Actions.
 *
 * The App keeps nothing in memory that matters: the mission state is in the repository, a
 * redelivered comment maps to the same mission id, the render throttle only saves writes, and
 * the integrate runs in flight (integrate-flights.ts) only save runs: forgotten, the next leg's
 * end dispatches one.
 *
 * @example
 * const middleware = await createNodeMiddleware((app) => narutoApp(app, deps), { probot });
 */
import type { Probot } from "probot";
import { onComment } from "./comment.ts";
import { onPush } from "./push.ts";
import type { AppDeps } from "./deps.ts";
import { createIntegrateFlights } from "./integrate-flights.ts";
import { createLegStarts, createRenderedVersions, isNarutoWorkflow, onRunCompleted, onRunEvent, onWorkLegEnded, onWorkLegStarted } from "./run-events.ts";
import { createStartedCi, onPublishEnded } from "./result-ci.ts";
import { unlessTokenFails } from "./token-failure.ts";
import { createThrottle, type Throttle } from "./throttle.ts";

export type { AppDeps } from "./deps.ts";

export function narutoApp(app: Probot, deps: AppDeps): Throttle {
  const throttle = createThrottle({
    intervalMs: deps.trackingIntervalMs,
    now: () => deps.now().getTime(),
    onError: (error) => app.log.warn({ err: error }, "a deferred tracking-comment update failed; the next event renders it again"),
  });
  const memory = {
    throttle,
    rendered: createRenderedVersions(),
    starts: createLegStarts(),
    ci: createStartedCi(),
    flights: createIntegrateFlights({ now: () => deps.now().getTime() }),
  };

  // Only `created`: an edited comment must never start anything twice.
  app.on("issue_comment.created", async (context) => {
    await unlessTokenFails(context, () => onComment(deps, context));
  });

  // A base branch moved: finished missions on it refresh when their config opts in (push.ts).
  app.on("push", async (context) => {
    await unlessTokenFails(context, () => onPush(deps, context));
  });

  app.on("workflow_run", async (context) => {
    const run = context.payload.workflow_run;
    if (!isNarutoWorkflow(deps, run.path)) return;
    // `display_title` is missing from some older payload types; it is the run's `run-name`.
    const title = (run as { display_title?: string | null }).display_title ?? null;
    const ref = { id: run.id, title, headBranch: run.head_branch ?? null };
    await unlessTokenFails(context, () => onRunEvent(deps, memory, context, ref));
    // An integrate run completed: the next one of its work run may go (integrate-flights.ts).
    if (context.payload.action === "completed") await unlessTokenFails(context, () => onRunCompleted(deps, memory, context, ref));
  });

  app.on("workflow_job", async (context) => {
    const job = context.payload.workflow_job;
    // Older payloads lack `workflow_name`; then the job's name decides.
    const workflow = (job as { workflow_name?: string | null }).workflow_name;
    if (typeof workflow === "string" && workflow !== deps.workflowName) return;
    // The template names each job after its mission ("work m-1a2b3c alpha#1").
    if (context.payload.action === "in_progress" || context.payload.action === "completed") {
      // Saved before the render, which then shows the attempt under way, or its agent done.
      const leg = {
        name: job.name,
        status: job.status,
        conclusion: job.conclusion ?? null,
        startedAt: job.started_at ?? null,
        completedAt: job.completed_at ?? null,
        url: job.html_url ?? null,
      };
      await unlessTokenFails(context, () => onWorkLegStarted(deps, memory, context, leg));
    }
    await unlessTokenFails(context, () => onRunEvent(deps, memory, context, { id: job.run_id, title: job.name, headBranch: job.head_branch ?? null }));
    if (context.payload.action === "completed") {
      await unlessTokenFails(context, () => onWorkLegEnded(deps, memory, context, { runId: job.run_id, name: job.name, conclusion: job.conclusion ?? null }));
      await unlessTokenFails(context, () => onPublishEnded(deps, memory, context, { name: job.name, conclusion: job.conclusion ?? null }));
    }
  });

  return throttle;
}
