/** The action's inputs to the mode that handles them. */
import type { CommandInput, DispatchInput, ModeDeps } from "./deps.ts";
import { commandMode } from "./modes/command.ts";
import { integrateMode } from "./modes/integrate.ts";
import { planMode } from "./modes/plan.ts";
import { reviewMode } from "./modes/review.ts";
import { ModeInputError } from "./modes/shared.ts";
import { sweepMode } from "./modes/sweep.ts";
import { workMode } from "./modes/work.ts";

export const MODES = ["command", "plan", "work", "integrate", "review", "sweep"] as const;
export type Mode = (typeof MODES)[number];

export interface ActionInputs {
  readonly mode: string;
  readonly mission: string;
  readonly items: string;
  readonly artifacts: string;
}

export function parseMode(value: string): Mode {
  const mode = MODES.find((m) => m === value.trim());
  if (!mode) throw new ModeInputError(`input mode ${JSON.stringify(value)}: expected one of ${MODES.join(", ")}`);
  return mode;
}

export async function runMode(
  deps: ModeDeps,
  inputs: ActionInputs,
  context: { command: CommandInput; dispatch: DispatchInput; signal?: AbortSignal },
): Promise<void> {
  const mode = parseMode(inputs.mode);
  switch (mode) {
    case "command":
      await commandMode(deps, context.command);
      return;
    case "plan":
      return planMode(deps, { mission: inputs.mission });
    case "work":
      return workMode(deps, { mission: inputs.mission, items: inputs.items, ...(context.signal ? { signal: context.signal } : {}) });
    case "integrate":
      if (inputs.artifacts.trim() === "") throw new ModeInputError("input artifacts: the folder actions/download-artifact downloaded into");
      return integrateMode(deps, { mission: inputs.mission, artifacts: inputs.artifacts, dispatch: context.dispatch });
    case "review":
      return reviewMode(deps, { mission: inputs.mission });
    case "sweep":
      return sweepMode(deps);
  }
}
