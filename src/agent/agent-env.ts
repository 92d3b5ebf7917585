import { BASIC_ENV_NAMES, forbiddenEnvReason } from "../config/index.ts";
import type { PromptPath } from "./prompt.ts";

/** Which attempt is running: becomes the `NARUTO_*` variables of docs/architecture.md. */
export interface AttemptVars {
  readonly mission: string;
  readonly item: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  readonly writes: readonly PromptPath[];
  readonly promptFile: string;
  readonly resultFile: string;
  /** The planner's: where it writes the plan (`$NARUTO_PLAN_FILE`, also named in its prompt). */
  readonly planFile?: string;
}

export interface AgentEnvInput {
  /** The runner's environment (an entry point passes `process.env`). */
  readonly from: Readonly<Record<string, string | undefined>>;
  /** The profile's allowlist of names to pass through. */
  readonly allow: readonly string[];
  readonly attempt: AttemptVars;
}

export interface AgentEnv {
  readonly env: Record<string, string>;
  /** Allowlisted names that were not passed because they may never reach an agent. */
  readonly dropped: readonly { readonly name: string; readonly reason: string }[];
}

/**
 * The complete environment of an agent: the basics a shell needs, the allowlisted names, and the
 * `NARUTO_*` variables — nothing else of the runner's environment. GitHub tokens, the Actions
 * runtime variables and the Action's inputs are dropped even when allowlisted (see
 * `forbiddenEnvReason`): a process the agent starts could outlive its step and use them.
 *
 * @example buildAgentEnv({ from: process.env, allow: ["ANTHROPIC_API_KEY"], attempt })
 */
export function buildAgentEnv(input: AgentEnvInput): AgentEnv {
  const { env, dropped } = buildCommandEnv({ from: input.from, allow: input.allow });
  const { attempt } = input;
  env.NARUTO_PROMPT_FILE = attempt.promptFile;
  env.NARUTO_RESULT_FILE = attempt.resultFile;
  env.NARUTO_MISSION = attempt.mission;
  env.NARUTO_ITEM = attempt.item;
  env.NARUTO_ATTEMPT = String(attempt.attempt);
  env.NARUTO_WRITES = attempt.writes.map((p) => (typeof p === "string" ? p : p.path)).join("\n");
  if (attempt.planFile !== undefined) env.NARUTO_PLAN_FILE = attempt.planFile;
  return { env, dropped };
}

/**
 * The environment of a command that is not an attempt (the queue's verify): the basics and the
 * allowlisted names, nothing else, with the same forbidden names dropped.
 */
export function buildCommandEnv(input: { readonly from: Readonly<Record<string, string | undefined>>; readonly allow: readonly string[] }): AgentEnv {
  const env: Record<string, string> = {};
  const dropped: { name: string; reason: string }[] = [];
  for (const name of [...BASIC_ENV_NAMES, ...input.allow]) {
    const reason = forbiddenEnvReason(name);
    if (reason !== null) {
      dropped.push({ name, reason });
      continue;
    }
    const value = input.from[name];
    if (value !== undefined) env[name] = value;
  }
  return { env, dropped };
}
