/**
 * The action's inputs to the mode that handles them, and the agent step's prepared job to the
 * step that runs it. `plan`, `work`, `review` and `queue` in the action only prepare: the agent
 * (or the queue's verify command) runs in the next step, a `run:` step that holds no token
 * (docs/action.md).
 */
import { mkdir } from "node:fs/promises";
import type { AgentStepDeps, CommandInput, DispatchInput, ModeDeps } from "./deps.ts";
import { commandMode } from "./modes/command.ts";
import { publishMode } from "./modes/publish.ts";
import { prepareQueue, queueStep } from "./modes/queue.ts";
import { planStep, preparePlan } from "./modes/plan.ts";
import { prepareReview, reviewStep } from "./modes/review.ts";
import { ModeInputError } from "./modes/shared.ts";
import { sweepMode } from "./modes/sweep.ts";
import { watchMode, type WatchTiming } from "./modes/watch.ts";
import { prepareWork, workStep } from "./modes/work.ts";
import type { PreparedJob } from "./prepared.ts";
import { SudoInStepError, tokenVariables, TokenInStepError } from "./step-env.ts";

export const MODES = ["command", "plan", "work", "watch", "review", "queue", "publish", "sweep"] as const;
export type Mode = (typeof MODES)[number];

export interface ActionInputs {
  readonly mode: string;
  readonly mission: string;
  readonly items: string;
  readonly artifacts: string;
}

export function parseMode(value: string): Mode {
  if (value.trim() === "integrate") {
    throw new ModeInputError(
      'input mode "integrate" was split into two jobs: `queue` (builds and verifies, read-only token) and `publish` (pushes, runs nothing of the repository). Update .github/workflows/naruto.yml from templates/naruto.yml (docs/action.md)',
    );
  }
  const mode = MODES.find((m) => m === value.trim());
  if (!mode) throw new ModeInputError(`input mode ${JSON.stringify(value)}: expected one of ${MODES.join(", ")}`);
  return mode;
}

export async function runMode(
  deps: ModeDeps,
  inputs: ActionInputs,
  context: { command: CommandInput; dispatch: DispatchInput; entryPoint?: string; runId?: number | null; watch?: WatchTiming },
): Promise<void> {
  const mode = parseMode(inputs.mode);
  // The agent step runs this same bundle: `node "$NARUTO_CLI"`.
  if ((mode === "plan" || mode === "work" || mode === "review" || mode === "queue") && context.entryPoint !== undefined)
    deps.log.setOutput("cli", context.entryPoint);
  switch (mode) {
    case "command":
      await commandMode(deps, context.command);
      return;
    case "plan":
      return preparePlan(deps, { mission: inputs.mission });
    case "work":
      return prepareWork(deps, { mission: inputs.mission, items: inputs.items });
    case "watch":
      await watchMode(deps, { mission: inputs.mission, runId: context.runId ?? null, dispatch: context.dispatch }, context.watch ?? DEFAULT_WATCH);
      return;
    case "queue":
      return prepareQueue(deps, { mission: inputs.mission, dispatch: context.dispatch });
    case "publish":
      return publishMode(deps, { mission: inputs.mission, artifacts: artifactsInput(inputs), dispatch: context.dispatch });
    case "review":
      return prepareReview(deps, { mission: inputs.mission });
    case "sweep":
      return sweepMode(deps);
  }
}

/** Between two reads of a work run's jobs (main.ts takes NARUTO_WATCH_INTERVAL_MS over it). */
export const DEFAULT_WATCH: WatchTiming = { pollMs: 15_000, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/** The agent step: refuses to run with a token in reach, then runs what the action prepared. */
export async function runAgentStep(deps: AgentStepDeps, job: PreparedJob, options: { signal?: AbortSignal } = {}): Promise<void> {
  const tokens = tokenVariables(deps.env);
  if (tokens.length > 0) throw new TokenInStepError(tokens);
  if (await deps.sudoWorks()) throw new SudoInStepError();
  if (job.kind === "skip") {
    deps.log.info(job.reason);
    return;
  }
  // The folder the action's step made; recreated if a step in between removed it.
  await mkdir(job.artifact, { recursive: true });
  switch (job.kind) {
    case "plan":
      return planStep(deps, job);
    case "work":
      return workStep(deps, job, options);
    case "review":
      return reviewStep(deps, job);
    case "queue":
      return queueStep(deps, job);
  }
}

function artifactsInput(inputs: ActionInputs): string {
  if (inputs.artifacts.trim() === "") throw new ModeInputError("input artifacts: the folder actions/download-artifact downloaded into");
  return inputs.artifacts;
}
