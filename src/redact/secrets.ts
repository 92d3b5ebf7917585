/**
 * Which values of an environment are secrets to redact: every variable naruto passes to an agent
 * or a verify command (the config's allowlists and the presets'), and every variable whose name
 * says it holds a credential (`GITHUB_TOKEN`, the Action's `INPUT_GITHUB-TOKEN`,
 * `ACTIONS_RUNTIME_TOKEN`, the App's `PRIVATE_KEY` and `WEBHOOK_SECRET`, `*_API_KEY`, …).
 * Entry points pass their environment in; nothing here reads `process.env`.
 */
import { BASIC_ENV_NAMES, NARUTO_ENV_NAMES } from "../config/index.ts";
import type { Config } from "../config/index.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** Name parts (split on `_` and `-`) that mark a credential. */
const SECRET_PARTS = new Set([
  "TOKEN",
  "TOKENS",
  "SECRET",
  "SECRETS",
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "KEY",
  "APIKEY",
  "CREDENTIAL",
  "CREDENTIALS",
  "AUTH",
  "PAT",
  "COOKIE",
]);

/**
 * Passed to agents by the presets, but settings rather than secrets: a region, a project, a
 * model, a switch, a folder. Their values are ordinary words that also name paths and items
 * (`infra/us-east-1/`), so redacting them would mangle the mission, not protect anything.
 */
const SETTINGS = new Set([
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_PROFILE",
  "CLOUD_ML_REGION",
  "GOOGLE_CLOUD_PROJECT",
  "GOOGLE_CLOUD_LOCATION",
  "ANTHROPIC_VERTEX_PROJECT_ID",
  "AIDER_MODEL",
  "CLAUDE_CODE_USE_BEDROCK",
  "CLAUDE_CODE_USE_VERTEX",
  "CLAUDE_CODE_USE_FOUNDRY",
  "GOOGLE_GENAI_USE_VERTEXAI",
  "CODEX_HOME",
  "GEMINI_CLI_HOME",
]);

/** What a shell needs and what naruto sets itself: paths and ids, never secrets. */
const NOT_SECRET = new Set<string>([...BASIC_ENV_NAMES, ...NARUTO_ENV_NAMES, ...SETTINGS]);

/** Whether a variable's name says it holds a credential. */
export function isSecretName(name: string): boolean {
  return name
    .toUpperCase()
    .split(/[_-]/)
    .some((part) => SECRET_PARTS.has(part));
}

/** Every name the config passes to an agent or to the queue's verify command (presets included). */
export function passedNames(config: Pick<Config, "agents" | "queue">): string[] {
  return [...new Set([...Object.values(config.agents).flatMap((a) => a.env), ...config.queue.env])];
}

/**
 * The secret values of `env`: those of the `passed` names (but the basics, naruto's own and the
 * presets' settings), and those of every credential-named variable.
 *
 * @example secretValues({ env: process.env, passed: passedNames(config) })
 */
export function secretValues(input: { readonly env: Env; readonly passed?: readonly string[] }): string[] {
  const names = new Set([...(input.passed ?? []).filter((n) => !NOT_SECRET.has(n.toUpperCase())), ...Object.keys(input.env).filter(isSecretName)]);
  const values: string[] = [];
  for (const name of names) {
    const value = input.env[name];
    if (value !== undefined && value !== "") values.push(value);
  }
  return values;
}
