/**
 * One workflow run: each job once the jobs it needs have ended (jobs that need nothing of each
 * other run side by side), each job's `if:` (a job whose needs did not all succeed is skipped
 * unless its condition uses a status function such as `always()`), matrix legs with `max-parallel` and `fail-fast`, job `concurrency` groups, and the run's jobs as
 * the fake GitHub's jobs API shows them.
 */
import { isBasicExpression, isString } from "@actions/workflow-parser";
import { type ConcurrencyGroups, MAX_PENDING } from "./concurrency.ts";
import type { EvalContext } from "./expressions.ts";
import { runLeg, type RunScope } from "./job-runner.ts";
import { runsOnLabels, type RunnerPool } from "./runners.ts";
import { expandMatrix, legName, type Combination } from "./matrix.ts";
import { conditionOf, textOf, valueOfToken } from "./template-eval.ts";
import type { Conclusion, JobResult, RunResult } from "./types.ts";
import type { JobSpec, Workflow } from "./workflow.ts";

export interface JobHookInfo {
  readonly runId: number;
  readonly job: string;
  readonly trigger: RunScope["trigger"];
}

/** A job's progress as the runner reports it to GitHub. */
export interface JobReport {
  readonly status: "queued" | "in_progress" | "completed";
  readonly conclusion?: Conclusion;
  /** Its `runs-on` labels (from when it is queued). */
  readonly labels?: readonly string[];
  /** The runner that took it (from `in_progress`). */
  readonly runner?: string;
}

export interface RunDeps {
  readonly concurrency: ConcurrencyGroups;
  /** Matrix legs of one job run at once at most (the machine's share of a runner pool). */
  readonly legConcurrency: number;
  /** The repository's runners: the quota of jobs at once, and their labels (runners.ts). */
  readonly runners: RunnerPool;
  readonly beforeJob?: (info: JobHookInfo) => Promise<void> | void;
  /** Mirrors job progress into the fake GitHub's run (dispatch runs only); returns the job's id there (null: none). */
  readonly reportJob?: (name: string, report: JobReport) => number | null;
  /** Mirrors each step of a job, by its id in the fake GitHub (see LegInput.reportStep). */
  readonly reportStep?: (jobId: number, step: { number: number; name: string; status: "in_progress" | "completed"; conclusion?: string }) => void;
}

function transitiveNeeds(workflow: Workflow, job: JobSpec): string[] {
  const seen = new Set<string>();
  const visit = (id: string) => {
    for (const need of workflow.jobs.find((j) => j.id === id)?.needs ?? []) {
      if (!seen.has(need)) seen.add(need), visit(need);
    }
  };
  visit(job.id);
  return [...seen];
}

/** The job's name as written (a job that does not run has its name unevaluated). */
function writtenName(job: JobSpec): string {
  if (job.name === undefined) return job.id;
  return isString(job.name) ? job.name.value : job.name.toDisplayString();
}

function skipped(job: JobSpec, reason: string): JobResult {
  return {
    job: job.id,
    name: writtenName(job),
    matrix: null,
    result: "skipped",
    reason,
    outputs: {},
    steps: [],
    permissions: null,
    orphansKilled: 0,
    concurrencyGroup: null,
  };
}

async function pool<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

type RunFacts = Pick<RunScope, "trigger" | "repository" | "id" | "runNumber" | "workflow" | "serverUrl" | "apiUrl" | "vars">;

function runGitHubContext(run: RunFacts): Record<string, unknown> {
  return {
    event: run.trigger.payload,
    event_name: run.trigger.event,
    ref: run.trigger.ref,
    sha: run.trigger.sha,
    repository: run.repository.fullName,
    repository_owner: run.repository.owner,
    actor: run.trigger.actor,
    run_id: String(run.id),
    run_number: String(run.runNumber),
    workflow: run.workflow.name,
    server_url: run.serverUrl,
    api_url: run.apiUrl,
  };
}

/**
 * The run's title: `run-name:` evaluated with the `github`, `inputs` and `vars` contexts (the
 * only ones GitHub allows there), else the workflow's name. A `run-name` that cannot be
 * evaluated falls back to the workflow's name, as GitHub shows it.
 */
export function runTitle(run: RunFacts): string {
  const spec = run.workflow.runName;
  if (spec === undefined) return run.workflow.name;
  try {
    const title = textOf(spec, { contexts: { github: runGitHubContext(run), inputs: run.trigger.inputs, vars: run.vars } });
    return title.trim() === "" ? run.workflow.name : title;
  } catch {
    return run.workflow.name;
  }
}

export async function runWorkflow(run: RunScope, deps: RunDeps): Promise<RunResult> {
  const done = new Map<string, { result: Conclusion; outputs: Record<string, string> }>();
  const byJob = new Map<string, JobResult[]>();
  const github = runGitHubContext(run);

  // As on GitHub, a job starts once every job it needs has ended: jobs that need nothing of
  // each other (a matrix and a job beside it) run side by side. Results keep the file's order.
  const started = new Map<string, Promise<void>>();
  const ended = (id: string): Promise<void> => {
    let promise = started.get(id);
    if (promise === undefined) {
      const job = run.workflow.jobs.find((j) => j.id === id);
      promise = job === undefined ? Promise.resolve() : runJob(job);
      started.set(id, promise);
    }
    return promise;
  };
  const runJob = async (job: JobSpec): Promise<void> => {
    await Promise.all(job.needs.map(ended));
    const needs = Object.fromEntries(job.needs.map((n) => [n, done.get(n) ?? { result: "skipped" as const, outputs: {} }]));
    const upstream = transitiveNeeds(run.workflow, job).map((n) => done.get(n)?.result ?? "skipped");
    const context: EvalContext = {
      contexts: { github, inputs: run.trigger.inputs, needs, vars: run.vars },
      status: { success: upstream.every((r) => r === "success"), failure: upstream.includes("failure"), cancelled: run.isCancelled() },
    };
    let results: JobResult[];
    try {
      if (!conditionOf(job.if, context)) {
        const notOk = job.needs.filter((n) => needs[n]?.result !== "success");
        results = [skipped(job, notOk.length > 0 ? `needed job(s) ${notOk.join(", ")} did not succeed` : `if: ${job.if.expression} was false`)];
      } else {
        await deps.beforeJob?.({ runId: run.id, job: job.id, trigger: run.trigger });
        results = await runLegs(run, deps, job, context, needs);
      }
    } catch (error) {
      results = [{ ...skipped(job, `the job could not start: ${error instanceof Error ? error.message : String(error)}`), result: "failure" }];
    }
    for (const r of results) if (r.result === "skipped") deps.reportJob?.(r.name, { status: "completed", conclusion: "skipped" });
    byJob.set(job.id, results);
    const result: Conclusion = results.some((r) => r.result === "failure")
      ? "failure"
      : results.some((r) => r.result === "cancelled")
        ? "cancelled"
        : results.every((r) => r.result === "skipped")
          ? "skipped"
          : "success";
    done.set(job.id, { result, outputs: Object.assign({}, ...results.map((r) => Object.fromEntries(Object.entries(r.outputs).filter(([, v]) => v !== "")))) });
  };
  await Promise.all(run.workflow.jobs.map((job) => ended(job.id)));
  const jobs = run.workflow.jobs.flatMap((job) => byJob.get(job.id) ?? []);
  const conclusion: Conclusion = run.isCancelled()
    ? "cancelled"
    : jobs.some((j) => j.result === "failure")
      ? "failure"
      : jobs.some((j) => j.result === "cancelled")
        ? "cancelled"
        : "success";
  return {
    id: run.id,
    title: runTitle(run),
    event: run.trigger.event,
    inputs: Object.fromEntries(Object.entries(run.trigger.inputs).map(([k, v]) => [k, String(v)])),
    conclusion,
    jobs,
  };
}

/** A plain object's field (evaluated workflow values are plain JSON-shaped data). */
function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

/** Whether GitHub names a leg by the job's own name: only when that name uses the matrix. */
function namesItsLegs(job: JobSpec): boolean {
  return job.name !== undefined && isBasicExpression(job.name) && /\bmatrix\b/i.test(job.name.expression);
}

async function runLegs(
  run: RunScope,
  deps: RunDeps,
  job: JobSpec,
  context: EvalContext,
  needs: Record<string, { result: Conclusion; outputs: Record<string, string> }>,
): Promise<JobResult[]> {
  const strategySpec = valueOfToken(job.strategy, context);
  const combinations: (Combination | null)[] = expandMatrix(field(strategySpec, "matrix")) ?? [null];
  const maxParallelSpec = field(strategySpec, "max-parallel");
  const maxParallel = maxParallelSpec === undefined ? combinations.length : Number(maxParallelSpec);
  const failFast = String(field(strategySpec, "fail-fast") ?? true) === "true";
  const results: JobResult[] = new Array<JobResult>(combinations.length);
  let failedLeg = false;
  // Every leg is named, and queued for a runner, when the job becomes ready (a leg of a
  // concurrency group once the group lets it in), as GitHub lists a matrix's legs at once.
  const legs = combinations.map((matrix, index) => {
    const strategy = { "fail-fast": failFast, "job-index": index, "job-total": combinations.length, "max-parallel": maxParallel };
    const legContext: EvalContext = { ...context, contexts: { ...context.contexts, matrix: matrix ?? {}, strategy } };
    const named = job.name === undefined ? job.id : textOf(job.name, legContext);
    const name = matrix !== null && namesItsLegs(job) ? named : legName(named, matrix);
    const spec = valueOfToken(job.concurrency, legContext);
    const group = spec === undefined ? null : String(typeof spec === "string" ? spec : field(spec, "group"));
    return { matrix, index, strategy, name, spec, group, labels: runsOnLabels(valueOfToken(job.runsOn, legContext)) };
  });
  for (const leg of legs) if (leg.group === null) deps.reportJob?.(leg.name, { status: "queued", labels: leg.labels });
  await pool(legs, Math.min(maxParallel, deps.legConcurrency), async (leg) => {
    const { matrix, index, strategy, name, spec, group } = leg;
    if (failFast && failedLeg) {
      results[index] = { ...skipped(job, "cancelled by fail-fast after another leg failed"), name, matrix, result: "cancelled" };
      deps.reportJob?.(name, { status: "completed", conclusion: "cancelled" });
      return;
    }
    // cancel-in-progress stops the running leg before its next step (not in the middle of one).
    const abort = { requested: false };
    const member = { cancel: () => void (abort.requested = true) };
    const policy = { queueMax: field(spec, "queue") === "max", cancelInProgress: String(field(spec, "cancel-in-progress") ?? false) === "true" };
    const admission = group === null ? "admitted" : await deps.concurrency.acquire(group, policy, member);
    if (group !== null && admission !== "admitted") {
      const why = admission === "queue-full" ? `its queue already held ${MAX_PENDING} pending jobs` : "a newer job joined it";
      results[index] = {
        ...skipped(job, `cancelled by concurrency group ${group}: ${why}`),
        name,
        matrix,
        result: "cancelled",
        concurrencyGroup: group,
      };
      return;
    }
    try {
      if (group !== null) deps.reportJob?.(name, { status: "queued", labels: leg.labels });
      if (!deps.runners.canRun(leg.labels)) {
        // GitHub leaves such a job queued until it gives up (a day); failing it at once says why.
        results[index] = {
          ...skipped(job, `no runner has the labels ${JSON.stringify(leg.labels)} of its runs-on: GitHub would leave it queued`),
          name,
          matrix,
          result: "failure",
          concurrencyGroup: group,
        };
        failedLeg = true;
        deps.reportJob?.(name, { status: "completed", conclusion: "failure" });
        return;
      }
      const runner = await deps.runners.acquire();
      try {
        if (run.isCancelled()) {
          results[index] = {
            ...skipped(job, "the run was cancelled while the job waited for a runner"),
            name,
            matrix,
            result: "cancelled",
            concurrencyGroup: group,
          };
          return;
        }
        const jobId = deps.reportJob?.(name, { status: "in_progress", runner: runner.name }) ?? null;
        const reportStep = deps.reportStep;
        const result = await runLeg({
          jobId,
          run,
          job,
          name,
          matrix,
          needs,
          strategy,
          concurrencyGroup: group,
          abort,
          ...(reportStep && jobId !== null ? { reportStep: (step) => reportStep(jobId, step) } : {}),
        });
        results[index] = { ...result, runsOn: leg.labels, runner: runner.name };
        if (result.result === "failure") failedLeg = true;
        deps.reportJob?.(name, { status: "completed", conclusion: result.result });
      } finally {
        runner.release();
      }
    } finally {
      if (group !== null) deps.concurrency.release(group, member);
    }
  });
  return results;
}
