/**
 * A job's ways out, redacted (docs/architecture.md, "What leaves"): the entry point (main.ts) and the
 * tests that stand in for it wrap the deps they built with these, so every mode writes through
 * the redactor — the job log and summary, comments, issues, pull requests and check runs, and the
 * mission document pushed to `naruto-state/<mission>`.
 */
import { createRedactor, redactingGitHub, redactingStore, secretValues } from "../redact/index.ts";
import type { AgentStepDeps, ModeDeps } from "./deps.ts";
import { safeJobLog } from "./job-log.ts";

/**
 * The action's step: its secrets are the credential-named variables of its environment and
 * `secrets` (the job's token, which main.ts takes out of the environment before anything runs).
 */
export function redactedModeDeps(deps: ModeDeps, options: { readonly secrets?: readonly string[] } = {}): ModeDeps {
  const redactor = createRedactor({ secrets: [...secretValues({ env: deps.env }), ...(options.secrets ?? [])] });
  return {
    ...deps,
    log: safeJobLog(deps.log, redactor),
    github: redactingGitHub(deps.github, redactor),
    store: redactingStore(deps.store, redactor),
    ...(deps.ciGitHub === undefined ? {} : { ciGitHub: redactingGitHub(deps.ciGitHub, redactor) }),
  };
}

/**
 * The agent step (no GitHub, no token): its log. What the agent prints is redacted where it
 * enters naruto (runAgent), with the agent's own allowlist; this is the line behind it.
 */
export function redactedStepDeps(deps: AgentStepDeps): AgentStepDeps {
  return { ...deps, log: safeJobLog(deps.log, createRedactor({ secrets: secretValues({ env: deps.env }) })) };
}
