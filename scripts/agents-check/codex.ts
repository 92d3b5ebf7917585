/**
 * The Codex CLI driver of `npm run agents-check`. Codex ignores `OPENAI_BASE_URL`: the only way
 * to point it at the scripted server is a model provider in `$CODEX_HOME/config.toml`, so the
 * driver writes one there (`wire_api = "responses"`, the key read from `CODEX_API_KEY`) and hands
 * the agent `CODEX_HOME`.
 *
 * `CODEX_HOME` lies under `stateDir`, never under /tmp: with its home under /tmp Codex refuses to
 * create its helper binaries, its `apply_patch` then fails, and it still exits 0.
 */
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startOpenAiResponsesServer } from "./openai-responses-server.ts";
import type { CliDriver, ModelServer } from "./types.ts";

/** The provider's id in config.toml; any name but Codex's built-in `openai`, `ollama`, `lmstudio`. */
const PROVIDER = "naruto_agents_check";
/** The variable Codex reads the key from (the preset passes it through; the value is never checked). */
const KEY_VARIABLE = "CODEX_API_KEY";

export const codex: CliDriver = {
  name: "codex",
  pkg: "@openai/codex",
  version: "0.169.0",
  startServer: startOpenAiResponsesServer,
  async configure({ server, stateDir }) {
    const home = join(stateDir, "codex-home");
    await mkdir(home, { recursive: true });
    await writeFile(join(home, "config.toml"), codexConfig(server));
    return { env: { CODEX_HOME: home, [KEY_VARIABLE]: "sk-naruto-agents-check" }, readOnly: [home] };
  },
  /**
   * An API key stored as Codex's login, as a user stores one (`codex login --with-api-key`, the
   * real CLI, offline), in a Codex home whose provider takes Codex's own login
   * (`requires_openai_auth = true`, no `env_key`): Codex then sends the stored key to the
   * scripted server. A ChatGPT sign-in needs OpenAI's servers.
   */
  async login({ server, home, bin }) {
    const codexHome = join(home, ".codex");
    await mkdir(codexHome, { recursive: true });
    await writeFile(join(codexHome, "config.toml"), codexConfig(server, { login: true }));
    await new Promise<void>((resolve, reject) => {
      const child = execFile(
        join(bin, "codex"),
        ["login", "--with-api-key"],
        { env: { PATH: process.env.PATH ?? "", HOME: home, CODEX_HOME: codexHome }, timeout: 60_000 },
        (error) => (error === null ? resolve() : reject(new Error(`codex login --with-api-key failed: ${error.message}`))),
      );
      child.stdin?.end("sk-naruto-agents-check-stored-login\n");
    });
    return { env: { CODEX_HOME: codexHome }, readOnly: [codexHome], loginFile: join(codexHome, "auth.json") };
  },
  // Codex reports tokens but no price (AGENTS.md): the report shows no cost.
  expectedCostUsd: () => null,
};

/**
 * `config.toml` for a run against `server`. No `model`: Codex keeps its default model, and with
 * it the tools a real run gets (the freeform `exec` tool). The values are JSON strings, which are
 * valid TOML basic strings.
 */
export function codexConfig(server: Pick<ModelServer, "url">, options: { readonly login?: boolean } = {}): string {
  return [
    "# Written by npm run agents-check: Codex talks to its scripted model server.",
    `model_provider = ${JSON.stringify(PROVIDER)}`,
    "",
    `[model_providers.${PROVIDER}]`,
    `name = "naruto agents-check"`,
    `base_url = ${JSON.stringify(`${server.url}/v1`)}`,
    `wire_api = "responses"`,
    // With a login: the key Codex stored (auth.json); without: the variable.
    options.login === true ? "requires_openai_auth = true" : `env_key = ${JSON.stringify(KEY_VARIABLE)}`,
    // One try: the server answers at once or not at all, and retries would only slow a failure.
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
  ].join("\n");
}
