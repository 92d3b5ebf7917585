/**
 * The Gemini CLI driver of `npm run agents-check`. `GOOGLE_GEMINI_BASE_URL` points the CLI at
 * the scripted server, but on its own it selects the "gateway" auth type, which 0.61.0 refuses
 * headless (exit 41, "Invalid auth method selected"): a settings file must select
 * `gemini-api-key`, as a user of a gateway would.
 *
 * The file goes where a user's would be, in a Gemini home (`$GEMINI_CLI_HOME/.gemini/`) under
 * `stateDir`, shown read-only in the sandbox; the preset copies it into the attempt's private
 * HOME, since the CLI must write beside its settings. Measured on 0.61.0, the other places fail:
 * a read-only home makes the CLI exit 1, and the system settings (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`)
 * are skipped unless root owns them and every folder above them, which no one does inside a
 * sandbox that runs the agent as a user of its own.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startGeminiServer } from "./gemini-server.ts";
import type { CliDriver } from "./types.ts";

export const gemini: CliDriver = {
  name: "gemini",
  pkg: "@google/gemini-cli",
  version: "0.61.0",
  startServer: startGeminiServer,
  async configure({ server, stateDir }) {
    const home = join(stateDir, "gemini-home");
    await mkdir(join(home, ".gemini"), { recursive: true });
    await writeFile(join(home, ".gemini", "settings.json"), `${JSON.stringify(GEMINI_SETTINGS, null, 2)}\n`);
    return {
      // Not a key of anyone's: a value long enough that the redaction of passed variables hides nothing else.
      env: { GOOGLE_GEMINI_BASE_URL: server.url, GEMINI_API_KEY: "agents-check-not-a-real-gemini-key", GEMINI_CLI_HOME: home },
      readOnly: [home],
    };
  },
  // Gemini CLI reports tokens but no price (AGENTS.md): the report shows no cost.
  expectedCostUsd: () => null,
};

/**
 * The settings of a check run: the API-key auth that makes the CLI use the base URL; no usage
 * statistics sent to Google and no self-update, so the pinned version is the one checked.
 */
export const GEMINI_SETTINGS = {
  security: { auth: { selectedType: "gemini-api-key" } },
  privacy: { usageStatisticsEnabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
} as const;
