/**
 * A workflow file as the simulator reads it: the keys of the workflow syntax it models, checked
 * with zod so that a typo in a template fails loudly instead of being silently ignored.
 */
import { parse } from "yaml";
import { z } from "zod";

const Permissions = z.union([z.enum(["read-all", "write-all"]), z.record(z.string(), z.enum(["read", "write", "none"]))]);
export type PermissionsSpec = z.output<typeof Permissions>;

const Concurrency = z.union([
  z.string(),
  z.object({ group: z.string(), "cancel-in-progress": z.union([z.boolean(), z.string()]).optional(), queue: z.string().optional() }),
]);
export type ConcurrencySpec = z.output<typeof Concurrency>;

const Env = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));
const Condition = z.union([z.string(), z.boolean(), z.number()]).optional();

const Step = z
  .object({
    id: z.string().optional(),
    name: z.string().optional(),
    if: Condition,
    uses: z.string().optional(),
    run: z.string().optional(),
    shell: z.string().optional(),
    with: z.record(z.string(), z.unknown()).optional(),
    env: Env.optional(),
    "working-directory": z.string().optional(),
    "continue-on-error": z.union([z.boolean(), z.string()]).optional(),
    "timeout-minutes": z.union([z.number(), z.string()]).optional(),
  })
  .refine((s) => (s.uses === undefined) !== (s.run === undefined), { message: "a step has exactly one of `uses` and `run`" });
export type StepSpec = z.output<typeof Step>;

const Job = z.object({
  name: z.string().optional(),
  "runs-on": z.unknown().optional(),
  needs: z.union([z.string(), z.array(z.string())]).optional(),
  if: Condition,
  permissions: Permissions.optional(),
  strategy: z
    .object({
      matrix: z.unknown().optional(),
      "fail-fast": z.union([z.boolean(), z.string()]).optional(),
      "max-parallel": z.union([z.number(), z.string()]).optional(),
    })
    .optional(),
  concurrency: Concurrency.optional(),
  env: Env.optional(),
  outputs: z.record(z.string(), z.string()).optional(),
  "timeout-minutes": z.union([z.number(), z.string()]).optional(),
  "continue-on-error": z.union([z.boolean(), z.string()]).optional(),
  steps: z.array(Step).min(1),
});
export type JobSpec = z.output<typeof Job>;

const WorkflowFile = z.object({
  name: z.string().optional(),
  "run-name": z.string().optional(),
  on: z.unknown(),
  permissions: Permissions.optional(),
  env: Env.optional(),
  concurrency: Concurrency.optional(),
  jobs: z.record(z.string(), Job),
});

export interface Workflow {
  readonly name: string;
  /** `run-name:` as written (an expression over `github`, `inputs` and `vars`); undefined when absent. */
  readonly runName: string | undefined;
  readonly path: string;
  /** The triggers, normalized to an object keyed by event name. */
  readonly on: Readonly<Record<string, unknown>>;
  readonly permissions: PermissionsSpec | undefined;
  readonly env: Readonly<Record<string, string | number | boolean>>;
  readonly concurrency: ConcurrencySpec | undefined;
  /** In file order. */
  readonly jobs: readonly (JobSpec & { readonly id: string; readonly needs: readonly string[] })[];
}

/** A workflow file the simulator cannot run (bad YAML, unknown needs, a cycle, a missing key). */
export class WorkflowError extends Error {
  override readonly name = "WorkflowError";
}

function triggers(on: unknown): Record<string, unknown> {
  if (typeof on === "string") return { [on]: null };
  if (Array.isArray(on)) return Object.fromEntries(on.map((e) => [String(e), null]));
  if (typeof on === "object" && on !== null) return { ...on };
  throw new WorkflowError("`on:` is missing");
}

/** Parses and checks a workflow file; `path` names it in errors. */
export function parseWorkflow(text: string, path: string): Workflow {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw new WorkflowError(`${path}: not YAML: ${String(error)}`);
  }
  // The yaml package reads YAML 1.2, where `on` stays a string key; accept a YAML 1.1 `true` too.
  if (typeof doc === "object" && doc !== null && "true" in doc && !("on" in doc)) doc = { ...doc, on: (doc as Record<string, unknown>)["true"] };
  const parsed = WorkflowFile.safeParse(doc);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new WorkflowError(`${path}: ${problems.join("; ")}`);
  }
  const jobs = Object.entries(parsed.data.jobs).map(([id, job]) => ({
    ...job,
    id,
    needs: job.needs === undefined ? [] : typeof job.needs === "string" ? [job.needs] : job.needs,
  }));
  for (const job of jobs) {
    for (const need of job.needs) {
      if (!jobs.some((j) => j.id === need)) throw new WorkflowError(`${path}: job ${job.id} needs unknown job ${need}`);
    }
  }
  return {
    name: parsed.data.name ?? path,
    runName: parsed.data["run-name"],
    path,
    on: triggers(parsed.data.on),
    permissions: parsed.data.permissions,
    env: parsed.data.env ?? {},
    concurrency: parsed.data.concurrency,
    jobs: orderByNeeds(jobs, path),
  };
}

/** Jobs in an order where every job comes after what it needs (file order among equals). */
function orderByNeeds<T extends { readonly id: string; readonly needs: readonly string[] }>(jobs: readonly T[], path: string): T[] {
  const done = new Set<string>();
  const ordered: T[] = [];
  while (ordered.length < jobs.length) {
    const next = jobs.find((j) => !done.has(j.id) && j.needs.every((n) => done.has(n)));
    if (next === undefined) throw new WorkflowError(`${path}: the needs of jobs ${jobs.filter((j) => !done.has(j.id)).map((j) => j.id).join(", ")} form a cycle`);
    done.add(next.id);
    ordered.push(next);
  }
  return ordered;
}
