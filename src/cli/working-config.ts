/**
 * The config `naruto plan` checks a plan against: `.github/naruto.yml` of the repository the
 * command runs in, as it is in the work tree (the plan is being written there too); none
 * outside a repository.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { formatConfigErrors, loadConfig, type Config } from "../config/index.ts";
import { createGit, gitText } from "../git/index.ts";
import { ConfigInvalidError } from "../local/index.ts";
import type { CliIO } from "./io.ts";

export async function workingTreeConfig(io: CliIO): Promise<Config | null> {
  const root = await gitText(createGit({ env: io.env }), { args: ["rev-parse", "--show-toplevel"], cwd: io.cwd }).catch(() => null);
  if (root === null) return null;
  const text = await readFile(join(root, ".github", "naruto.yml"), "utf8").catch(() => null);
  if (text === null) return null;
  const loaded = loadConfig(text);
  if (!loaded.ok) throw new ConfigInvalidError(`.github/naruto.yml is invalid:\n${formatConfigErrors(loaded.errors)}`);
  return loaded.config;
}
