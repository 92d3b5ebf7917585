/**
 * A workflow file as GitHub reads it: `@actions/workflow-parser` checks it against GitHub's own
 * workflow schema (keys, types, where each context and function may be used, expression
 * syntax) and converts it (triggers, jobs, needs that are unknown or form a cycle, step ids,
 * `if:` with its implicit `success() &&`). Any diagnostic makes the file one the simulator
 * refuses to run, loudly, as GitHub refuses an invalid workflow.
 *
 * Values stay template tokens until a run evaluates them (template-eval.ts). Keys GitHub's
 * converter leaves out of its model (`permissions`, `timeout-minutes`, a step's `with`) are read
 * from the same checked token tree; keys the simulator does not model are refused.
 */
import { NoOperationTraceWriter, parseWorkflow as parseWithGitHub } from "@actions/workflow-parser";
import { convertOn } from "@actions/workflow-parser/model/converter/events";
import { convertJobs } from "@actions/workflow-parser/model/converter/jobs";
import { isActionStep, isJob, isRunStep } from "@actions/workflow-parser/model/type-guards";
import type { ActionStep, Job, RunStep } from "@actions/workflow-parser/model/workflow-template";
import type { TemplateContext } from "@actions/workflow-parser/templates/template-context";
import type { BasicExpressionToken, MappingToken, ScalarToken, TemplateToken } from "@actions/workflow-parser/templates/tokens/index";
import { readPermissions, type PermissionsSpec } from "./permissions.ts";
import { valueOfToken } from "./template-eval.ts";

export interface StepSpec {
  /** The step's `id:` as written; null when it has none (the `steps` context does not list it). */
  readonly id: string | null;
  /** The id GitHub gives every step (`__run`, `__actions_checkout`, … when it has none): `GITHUB_ACTION`. */
  readonly actionId: string;
  readonly name: ScalarToken | undefined;
  /** With GitHub's implicit `success() &&` when it calls no status function. */
  readonly if: BasicExpressionToken;
  readonly uses: string | undefined;
  readonly run: ScalarToken | undefined;
  readonly shell: TemplateToken | undefined;
  readonly with: MappingToken | undefined;
  readonly env: MappingToken | undefined;
  readonly workingDirectory: TemplateToken | undefined;
  readonly continueOnError: TemplateToken | undefined;
}

export interface JobSpec {
  readonly id: string;
  /** `name:` as written; undefined when the job has none (its id names it). */
  readonly name: ScalarToken | undefined;
  readonly needs: readonly string[];
  readonly if: BasicExpressionToken;
  readonly permissions: PermissionsSpec | undefined;
  readonly strategy: TemplateToken | undefined;
  readonly concurrency: TemplateToken | undefined;
  readonly env: MappingToken | undefined;
  readonly outputs: MappingToken | undefined;
  readonly timeoutMinutes: TemplateToken | undefined;
  /** `runs-on:` as written (a label, a list, `{ group, labels }`, or an expression such as `fromJSON(vars.X)`). */
  readonly runsOn: TemplateToken | undefined;
  readonly steps: readonly StepSpec[];
}

export interface Workflow {
  readonly name: string;
  /** `run-name:` as written (an expression over `github`, `inputs` and `vars`); undefined when absent. */
  readonly runName: ScalarToken | undefined;
  readonly path: string;
  /** The triggers as GitHub's converter gives them, keyed by event name (`workflow_dispatch.inputs` typed). */
  readonly on: Readonly<Record<string, unknown>>;
  readonly permissions: PermissionsSpec | undefined;
  readonly env: MappingToken | undefined;
  /** In an order where every job comes after what it needs (file order among equals). */
  readonly jobs: readonly JobSpec[];
}

/** A workflow file the simulator does not run: GitHub's diagnostics, or a key it does not model. */
export class WorkflowError extends Error {
  override readonly name = "WorkflowError";
  constructor(
    readonly path: string,
    readonly diagnostics: readonly string[],
  ) {
    super(`${path} is not a workflow the simulator runs:\n${diagnostics.map((d) => `  ${d}`).join("\n")}`);
  }
}

/** Keys GitHub accepts that the simulator would otherwise ignore, silently running something else (README.md). */
const NOT_MODELLED = {
  workflow: ["concurrency", "defaults"],
  job: ["container", "services", "environment", "defaults", "continue-on-error", "uses"],
  step: ["timeout-minutes"],
} as const;

const literal = (token: TemplateToken): unknown => valueOfToken(token, { contexts: {} });

function refuseUnmodelled(mapping: MappingToken, keys: readonly string[], where: string, problems: string[]): void {
  for (const key of keys) if (mapping.find(key) !== undefined) problems.push(`${where}${key}: the simulator does not model it (see its README.md)`);
}

function readStep(step: RunStep | ActionStep, raw: MappingToken, where: string, problems: string[]): StepSpec {
  refuseUnmodelled(raw, NOT_MODELLED.step, where, problems);
  const id = raw.find("id");
  return {
    id: id === undefined ? null : String(literal(id)),
    actionId: step.id,
    name: step.name,
    if: step.if,
    uses: isActionStep(step) ? step.uses.value : undefined,
    run: isRunStep(step) ? step.run : undefined,
    shell: raw.find("shell"),
    with: raw.find("with")?.assertMapping("step with"),
    env: step.env,
    workingDirectory: raw.find("working-directory"),
    continueOnError: raw.find("continue-on-error"),
  };
}

function readJob(job: Job, raw: MappingToken, problems: string[]): JobSpec {
  const where = `jobs.${job.id.value}.`;
  refuseUnmodelled(raw, NOT_MODELLED.job, where, problems);
  const rawSteps = [...(raw.find("steps")?.assertSequence("steps") ?? [])].map((step) => step.assertMapping("step"));
  const permissions = raw.find("permissions");
  const steps: StepSpec[] = [];
  // A step GitHub's converter dropped has its diagnostic already; the others line up with the file's.
  if (rawSteps.length === job.steps.length) {
    job.steps.forEach((step, i) => {
      const rawStep = rawSteps[i];
      if (rawStep === undefined) return;
      if (isRunStep(step) || isActionStep(step)) steps.push(readStep(step, rawStep, `${where}steps[${i}].`, problems));
      else problems.push(`${where}steps[${i}]: the simulator models run and uses steps only`);
    });
  }
  return {
    id: job.id.value,
    name: raw.find("name")?.assertScalar("job name"),
    needs: (job.needs ?? []).map((n) => n.value),
    if: job.if,
    permissions: permissions === undefined ? undefined : readPermissions(literal(permissions)),
    strategy: job.strategy,
    concurrency: job.concurrency,
    env: job.env,
    outputs: job.outputs,
    timeoutMinutes: raw.find("timeout-minutes"),
    runsOn: raw.find("runs-on"),
    steps,
  };
}

/** Jobs in an order where every job comes after what it needs (GitHub's converter refused cycles). */
function orderByNeeds(jobs: readonly JobSpec[]): JobSpec[] {
  const ordered: JobSpec[] = [];
  while (ordered.length < jobs.length) {
    const next = jobs.find((j) => !ordered.includes(j) && j.needs.every((n) => ordered.some((o) => o.id === n)));
    if (next === undefined) throw new Error("unreachable: GitHub's converter refuses needs that form a cycle");
    ordered.push(next);
  }
  return ordered;
}

/**
 * What `convertWorkflowTemplate` does with `on:` and `jobs:`, with the same converters, plus the
 * keys GitHub's model leaves out. Synchronous where that function is async only to fetch
 * reusable workflows, which the simulator refuses: callers such as webhooks.ts read a run's
 * title without awaiting.
 */
function convert(context: TemplateContext, mapping: MappingToken, problems: string[]): { on: Record<string, unknown>; jobs: JobSpec[] } {
  refuseUnmodelled(mapping, NOT_MODELLED.workflow, "", problems);
  const onToken = mapping.find("on");
  const jobsToken = mapping.find("jobs")?.assertMapping("jobs");
  const jobs: JobSpec[] = [];
  for (const job of jobsToken === undefined ? [] : convertJobs(context, jobsToken)) {
    const raw = jobsToken?.find(job.id.value)?.assertMapping("job");
    if (!isJob(job)) problems.push(`jobs.${job.id.value}: the simulator does not model reusable workflows`);
    else if (raw !== undefined) jobs.push(readJob(job, raw, problems));
  }
  return { on: onToken === undefined ? {} : convertOn(context, onToken), jobs };
}

/** Parses and checks a workflow file with GitHub's parser; `path` names it in diagnostics. */
export function parseWorkflow(text: string, path: string): Workflow {
  const { context, value: root } = parseWithGitHub({ name: path, content: text }, new NoOperationTraceWriter());
  // As GitHub's converter does by default: nothing is converted from a file with diagnostics.
  const mapping = root !== undefined && context.errors.count === 0 ? root.assertMapping("workflow") : undefined;
  const problems: string[] = [];
  const converted = mapping === undefined ? undefined : convert(context, mapping, problems);
  const diagnostics = [...context.errors.getErrors().map((e) => e.message), ...problems];
  if (mapping === undefined || converted === undefined || diagnostics.length > 0)
    throw new WorkflowError(path, diagnostics.length > 0 ? diagnostics : ["the file is empty"]);
  const name = mapping.find("name");
  const permissions = mapping.find("permissions");
  return {
    name: name === undefined ? path : String(literal(name)),
    runName: mapping.find("run-name")?.assertScalar("run-name"),
    path,
    on: converted.on,
    permissions: permissions === undefined ? undefined : readPermissions(literal(permissions)),
    env: mapping.find("env")?.assertMapping("env"),
    jobs: orderByNeeds(converted.jobs),
  };
}
