import { normalizePath, type RepoPath } from "./paths.ts";
import type { PlanLimits } from "./types.ts";

export const DEFAULT_MAX_ITEMS = 1000;
export const DEFAULT_MAX_PROMPT_CHARS = 65_536;
/**
 * What every supported agent reads from its working directory at start-up and may run or obey:
 * hooks and settings (`.claude/`, `.gemini/`, `.codex/`), MCP servers (`.mcp.json`), aider's
 * config files, and `.env`, which aider and Gemini CLI load (a model base URL in it would send
 * the API key elsewhere). Protected by default, and restored from the mission's base before an
 * agent runs on a tree that holds untrusted content (docs/architecture.md, "What agents read at start").
 */
export const AGENT_STARTUP_PATHS = [
  ".claude/",
  ".mcp.json",
  ".codex/",
  ".gemini/",
  ".aider.conf.yml",
  ".aider.model.settings.yml",
  ".aider.model.metadata.json",
  ".aiderignore",
  ".env",
] as const;

/**
 * Written as in the config; normalized by {@link defaultPlanLimits}. All of `.github/` (workflows,
 * and the composite actions they run, which a push may change without the `workflows`
 * permission), the places GitHub reads CODEOWNERS from (`.github/` holds the third), and the
 * agents' start-up config.
 */
export const DEFAULT_PROTECTED = [".github/", "CODEOWNERS", "docs/CODEOWNERS", ...AGENT_STARTUP_PATHS] as const;

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
