/**
 * Which variables of the runner's environment may reach an agent (docs/architecture.md). An agent gets
 * the basics a shell needs, the `NARUTO_*` variables naruto sets, and the names its profile
 * allowlists — except the forbidden ones below, which are dropped even when allowlisted (the
 * config loader rejects them too, so the drop never surprises anyone).
 */

/** Passed to every agent when set: what a shell and a compiler need to behave normally. */
export const BASIC_ENV_NAMES: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "TZ",
  "TMPDIR",
  // Tools switch off interactive prompts and spinners under CI.
  "CI",
];

export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Why a variable may never reach an agent, or null when it may.
 *
 * - GitHub tokens: a process the agent starts could outlive its step and push with them.
 * - `ACTIONS_*`: the runtime, cache and OIDC request tokens of a GitHub Actions job.
 * - `INPUT_*`: an Action's inputs, which include its `github-token`.
 * - `GITHUB_OUTPUT` and the runner's other file commands: their paths let a process write the
 *   step's outputs, the job's environment for later steps, and its summary.
 * - `GIT_DIR` and friends: they would point the agent's git at another repository than its work tree.
 * - `NARUTO_*` set by naruto itself: the runner's own values would be stale or wrong.
 */
export function forbiddenEnvReason(name: string): string | null {
  const upper = name.toUpperCase();
  if (/^(GH|GITHUB)_(ENTERPRISE_)?TOKEN$/.test(upper) || /^COPILOT_GITHUB_TOKEN$/.test(upper) || /^GITHUB_PAT/.test(upper)) {
    return "GitHub tokens never reach an agent";
  }
  if (upper.startsWith("ACTIONS_")) return "ACTIONS_* variables hold the Actions runtime and OIDC tokens";
  if (upper.startsWith("INPUT_")) return "INPUT_* variables are the Action's inputs, including its token";
  if (RUNNER_FILE_COMMANDS.has(upper))
    return "it is a file of the runner's: a line written there sets the step's outputs, the job's environment or its summary";
  if (GIT_REDIRECTS.has(upper)) return "it would point the agent's git at another repository";
  if (NARUTO_SET.has(upper)) return "naruto sets this variable itself";
  return null;
}

/** The runner's file commands (GitHub Actions): whoever writes them speaks for naruto's step. */
const RUNNER_FILE_COMMANDS = new Set(["GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY", "GITHUB_STATE", "GITHUB_PATH"]);

const GIT_REDIRECTS = new Set(["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"]);

/** The variables naruto sets for every attempt (docs/architecture.md). */
export const NARUTO_ENV_NAMES = [
  "NARUTO_PROMPT_FILE",
  "NARUTO_MISSION",
  "NARUTO_ITEM",
  "NARUTO_ATTEMPT",
  "NARUTO_WRITES",
  "NARUTO_RESULT_FILE",
  "NARUTO_PLAN_FILE",
] as const;

const NARUTO_SET = new Set<string>(NARUTO_ENV_NAMES);
