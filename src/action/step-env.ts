/**
 * The agent step's promise is that it holds no token: the runner gives a `run:` step neither
 * the job's `GITHUB_TOKEN` nor `ACTIONS_RUNTIME_TOKEN` unless the workflow passes them in `env:`.
 * A workflow that does (a job-wide `GH_TOKEN` for some other tool, say) would hand them to
 * everything the agent starts through `/proc/<pid>/environ` of this very step, so the step
 * refuses to run instead.
 */

/** Names that carry GitHub credentials on a runner. */
const TOKEN_NAMES = new Set([
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "GH_ENTERPRISE_TOKEN",
  "GITHUB_ENTERPRISE_TOKEN",
  "ACTIONS_RUNTIME_TOKEN",
  "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
]);

/** The names in `env` that carry a token, or an action input (which may: `INPUT_GITHUB-TOKEN`). */
export function tokenVariables(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.keys(env)
    .filter((name) => (TOKEN_NAMES.has(name.toUpperCase()) || name.toUpperCase().startsWith("INPUT_")) && (env[name] ?? "") !== "")
    .sort();
}

/** The agent step found a token in its own environment. */
export class TokenInStepError extends Error {
  override readonly name = "TokenInStepError";
  constructor(readonly variables: readonly string[]) {
    super(
      `the agent step holds ${variables.join(", ")} in its environment, and everything the agent starts could read it: ` +
        "run it as a `run:` step and pass only NARUTO_CLI, NARUTO_PREPARED and the agent's own keys in its `env:` (no token at workflow, job or step level)",
    );
  }
}

/**
 * The agent step could still become root (`sudo -n true` works). Root in the job undoes the
 * sandbox, so the workflow removes sudo before any agent step (templates/naruto.yml); this one
 * refuses to run an agent while it is there.
 */
export class SudoInStepError extends Error {
  override readonly name = "SudoInStepError";
  constructor() {
    super(
      "the agent step can still use sudo, and an agent with root could undo its sandbox: remove sudo before this step " +
        '(templates/naruto.yml\'s "naruto sandbox" step does, after installing bubblewrap), or run the job on a runner without it',
    );
  }
}
