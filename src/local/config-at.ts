/** The config a mission runs with: `.github/naruto.yml` as committed at its base. */
import { formatConfigErrors, loadConfig, type Config } from "../config/index.ts";
import type { Git } from "../git/index.ts";

/** The config is invalid; the message lists every bad field. */
export class ConfigInvalidError extends Error {
  override readonly name = "ConfigInvalidError";
}

/** `.github/naruto.yml` as committed at the base; defaults when there is none. */
export async function configAt(git: Git, repoDir: string, commit: string): Promise<Config> {
  const { stdout, code } = await git({ args: ["cat-file", "blob", `${commit}:.github/naruto.yml`], cwd: repoDir, okCodes: [128] });
  const loaded = loadConfig(code === 0 ? stdout.toString("utf8") : null);
  if (!loaded.ok) throw new ConfigInvalidError(`the config is invalid:\n${formatConfigErrors(loaded.errors)}`);
  return loaded.config;
}
