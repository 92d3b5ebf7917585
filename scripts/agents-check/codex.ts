/**
 * The Codex CLI driver of `npm run agents-check`. Codex ignores `OPENAI_BASE_URL`: the only way
 * to point it at the scripted server is a model provider in `$CODEX_HOME/config.toml`, so the
 * driver writes one there (`wire_api = "responses"`, the key read from `CODEX_API_KEY`) and hands
 * the agent `CODEX_HOME`.
 *
 * `CODEX_HOME` lies under `stateDir`, never under /tmp: with its home under /tmp Codex refuses to
 * create its helper binaries, its `apply_patch` then fails, and it still exits 0.
 */
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
  // Codex reports tokens but no price (AGENTS.md): the report shows no cost.
  expectedCostUsd: () => null,
};

/**
 * `config.toml` for a run against `server`. No `model`: Codex keeps its default model, and with
 * it the tools a real run gets (the freeform `exec` tool). The values are JSON strings, which are
 * valid TOML basic strings.
 */
export function codexConfig(server: Pick<ModelServer, "url">): string {
  return [
    "# Written by npm run agents-check: Codex talks to its scripted model server.",
    `model_provider = ${JSON.stringify(PROVIDER)}`,
    "",
    `[model_providers.${PROVIDER}]`,
    `name = "naruto agents-check"`,
    `base_url = ${JSON.stringify(`${server.url}/v1`)}`,
    `wire_api = "responses"`,
    `env_key = ${JSON.stringify(KEY_VARIABLE)}`,
    // One try: the server answers at once or not at all, and retries would only slow a failure.
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
  ].join("\n");
}
