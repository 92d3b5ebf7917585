import { normalizePath, type RepoPath } from "./paths.ts";
import type { PlanLimits } from "./types.ts";

export const DEFAULT_MAX_ITEMS = 1000;
export const DEFAULT_MAX_PROMPT_CHARS = 65_536;
/** Written as in the config; normalized by {@link defaultPlanLimits}. */
export const DEFAULT_PROTECTED = [".github/workflows/", ".github/naruto.yml"] as const;

/**
 * The limits a plan is checked against when neither config nor flags say otherwise.
 * Callers override single fields: `{ ...defaultPlanLimits(), maxItems: 5000 }`.
 */
export function defaultPlanLimits(): PlanLimits {
  return {
    maxItems: DEFAULT_MAX_ITEMS,
    maxPromptChars: DEFAULT_MAX_PROMPT_CHARS,
    protected: DEFAULT_PROTECTED.map(mustNormalize),
    allowProtected: false,
  };
}

function mustNormalize(path: string): RepoPath {
  const result = normalizePath(path);
  // The defaults are constants of this file: a failure here is a bug, not user input.
  if (!result.ok) throw new Error(`default protected path ${JSON.stringify(path)}: ${result.message}`);
  return result.value;
}
