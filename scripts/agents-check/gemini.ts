/**
 * The Gemini CLI driver of `npm run agents-check`. `GOOGLE_GEMINI_BASE_URL` points the CLI at
 * the scripted server, but on its own it selects the "gateway" auth type, which 0.61.0 refuses
 * headless (exit 41, "Invalid auth method selected"): a settings file must select
 * `gemini-api-key`.
 *
 * Where that file can live, measured on 0.61.0:
 * - the user settings (`$GEMINI_CLI_HOME/.gemini/settings.json`, else `$HOME/.gemini/`) do not
 *   work: the CLI writes its project registry and chats beside them, and exits 1 when that folder
 *   is read-only, as the sandbox shows everything outside the work directory; and HOME is the
 *   work directory's own, made by naruto for each attempt;
 * - the system settings (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`) are only read, so a read-only folder
 *   is fine, but the CLI skips them (with a "Security Warning") unless the file and every folder
 *   above it are owned by root and writable by no one else. So this driver needs root.
 */
import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { startGeminiServer } from "./gemini-server.ts";
import type { CliDriver } from "./types.ts";

export const gemini: CliDriver = {
  name: "gemini",
  pkg: "@google/gemini-cli",
  version: "0.61.0",
  startServer: startGeminiServer,
  async configure({ server, stateDir }) {
    const folder = join(stateDir, "gemini-system");
    await mkdir(folder, { recursive: true, mode: 0o755 });
    const settings = join(folder, "settings.json");
    await writeFile(settings, `${JSON.stringify(GEMINI_SETTINGS, null, 2)}\n`, { mode: 0o644 });
    const insecure = await insecurePath(settings);
    if (insecure !== null) {
      throw new Error(
        `Gemini CLI would skip its settings ${settings}: ${insecure}. It reads system settings only from a path owned by root ` +
          "and writable by no one else, and its own home cannot serve (it must be writable, and the sandbox shows it read-only): run agents-check as root.",
      );
    }
    return {
      env: { GOOGLE_GEMINI_BASE_URL: server.url, GEMINI_API_KEY: "agents-check-not-a-real-gemini-key", GEMINI_CLI_SYSTEM_SETTINGS_PATH: settings },
      readOnly: [folder],
    };
  },
  // Gemini CLI reports tokens but no price (AGENTS.md): the report shows no cost.
  expectedCostUsd: () => null,
};

/**
 * The system settings of a check run: the API-key auth that makes the CLI use the base URL; no
 * usage statistics sent to Google and no self-update, so the pinned version is the one checked.
 */
export const GEMINI_SETTINGS = {
  security: { auth: { selectedType: "gemini-api-key" } },
  privacy: { usageStatisticsEnabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
} as const;

/** Why Gemini CLI 0.61.0 would refuse `file` as system settings (its `isFileAndDirectorySecureSync`), or null. */
async function insecurePath(file: string): Promise<string | null> {
  for (let path = file; ; path = dirname(path)) {
    const info = await stat(path);
    if (info.uid !== 0) return `${path} is owned by uid ${info.uid}, not root`;
    if ((info.mode & 0o022) !== 0) return `${path} is writable by group or others (mode ${(info.mode & 0o777).toString(8)})`;
    if (dirname(path) === path) return null;
  }
}
