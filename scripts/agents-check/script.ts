/**
 * How every scripted model server reads a scenario (types.ts), so that the three servers agree
 * on what a turn is and the check can count them: a conversation is matched to a scenario by
 * its prompt, and the model's n-th answer (n = the answers already in the conversation) is the
 * n-th step. A `say` step, or running out of steps, ends the conversation.
 */
import type { Scenario, Step } from "./types.ts";

/** What the model does in one turn: a tool call, or the final text. */
export type Turn =
  | { readonly kind: "write"; readonly path: string; readonly content: string }
  | { readonly kind: "shell"; readonly command: string }
  | { readonly kind: "say"; readonly text: string };

/** The scenario whose `match` the text contains (the first, when several do). */
export function pickScenario(scenarios: readonly Scenario[], text: string): Scenario | null {
  return scenarios.find((s) => text.includes(s.match)) ?? null;
}

/** The model's turn after `answered` answers of its own in the conversation. */
export function turnAt(scenario: Scenario, answered: number): Turn {
  const end = finalIndex(scenario);
  if (answered >= end) return { kind: "say", text: sayText(scenario.steps[end]) };
  return toTurn(scenario.steps[answered]);
}

/** How many model turns the scenario takes: its tool steps and the final answer. */
export function turnsOf(scenario: Scenario): number {
  return finalIndex(scenario) + 1;
}

function finalIndex(scenario: Scenario): number {
  const say = scenario.steps.findIndex((s) => "say" in s);
  return say === -1 ? scenario.steps.length : say;
}

function toTurn(step: Step | undefined): Turn {
  if (step === undefined) return { kind: "say", text: "done" };
  if ("write" in step) return { kind: "write", path: step.write.path, content: step.write.content };
  if ("shell" in step) return { kind: "shell", command: step.shell };
  return { kind: "say", text: step.say };
}

function sayText(step: Step | undefined): string {
  return step !== undefined && "say" in step ? step.say : "done";
}
