/**
 * The planner agent (docs/architecture.md): when a request has no explicit plan, an agent is asked to
 * write one. Its plan is validated like any other; one retry gets the validation errors; then
 * planning fails with those errors, never with a half-valid plan. A run that failed in a way a
 * retry would repeat (see the engine's `permanent` outcome) is not retried.
 */
import { checkPlan, formatPlanError, type CheckOptions, type CheckResult } from "../plan/index.ts";
import { sanitizeUntrusted } from "../sanitize/index.ts";

/**
 * Runs the planner agent once. The runner decides where the agent writes its plan (outside the
 * files it reads) and gets the prompt for that place from `prompt`; it answers with the text
 * the agent left there, or null when there was none.
 */
export type PlannerRun = (input: { attempt: number; prompt: (planFile: string) => string }) => Promise<{
  ok: boolean;
  detail: string;
  planFile: string;
  plan: string | null;
  stopped?: boolean;
  /** The run failed in a way a second run would repeat (its CLI not found, its credentials refused): no retry. */
  permanent?: boolean;
  /** The agent's last lines (see output-tail.ts), for the terminal. */
  tail?: readonly string[];
}>;

export interface PlanWithAgentInput {
  readonly task: string;
  readonly run: PlannerRun;
  readonly check?: CheckOptions;
}

export type PlannerResult =
  | { readonly ok: true; readonly check: CheckResult; readonly text: string; readonly attempts: number }
  | { readonly ok: false; readonly reason: string; readonly attempts: number; readonly outputTail?: readonly string[] }
  /** The run was stopped (shutdown, cancel) while the planner worked: no verdict on planning. */
  | { readonly ok: false; readonly stopped: true; readonly reason: string; readonly attempts: number };

export const PLANNER_ATTEMPTS = 2;

export async function planWithAgent(input: PlanWithAgentInput): Promise<PlannerResult> {
  let errors: string[] = [];
  let tail: readonly string[] = [];
  for (let attempt = 1; attempt <= PLANNER_ATTEMPTS; attempt++) {
    const previous = errors;
    const run = await input.run({ attempt, prompt: (planFile) => plannerPrompt(input.task, planFile, previous) });
    if (run.stopped === true)
      return { ok: false, stopped: true, reason: "the planner was stopped: naruto is shutting down or the mission ended", attempts: attempt };
    tail = run.tail ?? [];
    if (!run.ok) {
      errors = [`the planner agent failed: ${run.detail}`];
      if (run.permanent === true) return { ok: false, reason: errors.join("\n"), attempts: attempt, ...(tail.length > 0 ? { outputTail: tail } : {}) };
      continue;
    }
    const text = run.plan;
    if (text === null) {
      errors = [`the planner agent wrote no plan to ${run.planFile}`];
      continue;
    }
    const check = checkPlan(text, input.check ?? {});
    if (check.ok) return { ok: true, check, text, attempts: attempt };
    errors = check.errors.map(formatPlanError);
  }
  return {
    ok: false,
    reason: `no valid plan after ${PLANNER_ATTEMPTS} attempts:\n${errors.join("\n")}`,
    attempts: PLANNER_ATTEMPTS,
    ...(tail.length > 0 ? { outputTail: tail } : {}),
  };
}

/** The planner's prompt: the request, the plan format, and the previous attempt's errors. */
export function plannerPrompt(task: string, planFile: string, previousErrors: readonly string[]): string {
  const parts = [
    "# naruto planner",
    "You plan work for several coding agents that will run in parallel on this repository.",
    "Read the repository (do not change it) and split the request below into small work items.",
    "",
    "## The request",
    "",
    sanitizeUntrusted(task).trim(),
    "",
    "## What to write",
    "",
    `Write the plan as YAML to this file (outside the repository): ${planFile}`,
    "",
    "```yaml",
    "version: 1",
    "title: <one line>",
    "items:",
    "  - id: <lowercase id, letters digits . _ ->",
    "    title: <one line>",
    "    prompt: |",
    "      <exact instructions for the agent doing this item>",
    "    writes: [<files, or directories ending in />, that this item may change>]",
    "    reads: [<files worth reading first>]",
    "    after: [<ids this item needs finished first>]",
    "    estimate: 10m",
    "```",
    "",
    "Rules: items that may run at the same time must not write the same paths (a directory",
    "ending in / covers everything under it); put `after` on an item that needs another's code;",
    "prefer many small items with disjoint writes; never write protected paths (by default all of",
    ".github/, CODEOWNERS, and agents' start-up config: .claude/, .mcp.json, .codex/, .gemini/, .aider*, .env).",
  ];
  if (previousErrors.length > 0) {
    parts.push("", "## Your previous plan was rejected", "", "Fix every one of these errors:", "", ...previousErrors.map((e) => `- ${e}`));
  }
  return `${parts.join("\n")}\n`;
}
