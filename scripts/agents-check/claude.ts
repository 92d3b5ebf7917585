/**
 * Claude Code under naruto's `claude` preset, pointed at the scripted Anthropic server with
 * `ANTHROPIC_BASE_URL` and any `ANTHROPIC_API_KEY` (AGENTS.md, "Driving the CLIs offline").
 * It needs no config file: its state goes to the private HOME naruto gives each attempt.
 */
import { startAnthropicServer } from "./anthropic-server.ts";
import type { CliDriver, Usage } from "./types.ts";

/**
 * What Claude Code 2.1.328 charges for the model the preset's `--model sonnet` resolves to
 * (`claude-sonnet-5-5`), in USD per million tokens, measured against the scripted server: it
 * prices the usage the server reports with its own table and reports that as `total_cost_usd`.
 */
const SONNET_PER_MILLION = { input: 2, output: 10, cacheRead: 0.1 } as const;

export const claude: CliDriver = {
  name: "claude",
  pkg: "@anthropic-ai/claude-code",
  version: "2.1.328",
  startServer: startAnthropicServer,
  async configure({ server }) {
    // Not a key of anyone's: a value long enough that the redaction of passed variables hides
    // nothing else by accident.
    return { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "agents-check-not-a-real-anthropic-key" }, readOnly: [] };
  },
  expectedCostUsd(usage: Usage, turns: number): number {
    const perTurn = usage.input * SONNET_PER_MILLION.input + usage.output * SONNET_PER_MILLION.output + (usage.cacheRead ?? 0) * SONNET_PER_MILLION.cacheRead;
    return (turns * perTurn) / 1_000_000;
  },
};
