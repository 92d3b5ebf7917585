/**
 * Claude Code under naruto's `claude` preset, pointed at the scripted Anthropic server with
 * `ANTHROPIC_BASE_URL` and any `ANTHROPIC_API_KEY` (AGENTS.md, "Driving the CLIs offline").
 * It needs no config file: its state goes to the private HOME naruto gives each attempt.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
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
  /**
   * A claude.ai login as `claude auth login` stores it (`~/.claude/.credentials.json`; the login
   * itself needs claude.ai, so the file is written here): `claude auth status` takes it
   * (`authMethod: claude.ai`), and Claude Code then sends its access token as a bearer token to
   * `ANTHROPIC_BASE_URL`, which the scripted server accepts. Measured on 2.1.328.
   */
  async login({ server, home }) {
    const dir = join(home, ".claude");
    await mkdir(dir, { recursive: true });
    const loginFile = join(dir, ".credentials.json");
    const oauth = {
      accessToken: "sk-ant-oat01-agents-check-not-a-real-access-token",
      refreshToken: "sk-ant-ort01-agents-check-not-a-real-refresh-token",
      // A day ahead: longer than an attempt may take (naruto refuses a token that would expire first).
      expiresAt: Date.now() + 86_400_000,
      scopes: ["user:inference", "user:profile", "user:sessions:claude_code"],
      subscriptionType: "max",
    };
    await writeFile(loginFile, JSON.stringify({ claudeAiOauth: oauth }), { mode: 0o600 });
    return { env: { ANTHROPIC_BASE_URL: server.url }, readOnly: [], loginFile };
  },
  expectedCostUsd(usage: Usage, turns: number): number {
    const perTurn = usage.input * SONNET_PER_MILLION.input + usage.output * SONNET_PER_MILLION.output + (usage.cacheRead ?? 0) * SONNET_PER_MILLION.cacheRead;
    return (turns * perTurn) / 1_000_000;
  },
};
