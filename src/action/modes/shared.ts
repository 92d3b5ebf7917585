/** Small steps every mode takes: the mission it names, its config, the artifact folder. */
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { formatConfigErrors, type Config } from "../../config/index.ts";
import { readConfigAt } from "../../github-driver/settings.ts";
import type { Mission } from "../../mission/document.ts";
import { MissionNotFoundError } from "../../mission/store.ts";
import type { ModeDeps } from "../deps.ts";

/** The mission input is missing or not a mission id. */
export class ModeInputError extends Error {
  override readonly name = "ModeInputError";
}

const MISSION_ID = /^m-[a-z0-9]{4,32}$/;

export function missionInput(value: string): string {
  if (!MISSION_ID.test(value)) throw new ModeInputError(`input mission ${JSON.stringify(value)}: expected a mission id like m-1a2b3c`);
  return value;
}

export async function loadMission(deps: ModeDeps, id: string): Promise<{ mission: Mission; version: string }> {
  const stored = await deps.store.load(id);
  if (stored === null) throw new MissionNotFoundError(id);
  return stored;
}

/** The config invalid at the mission's base: its errors, one per line. */
export class ConfigInvalidError extends Error {
  override readonly name = "ConfigInvalidError";
}

/** The config as committed at the mission's base (reviewed code, never what an agent wrote). */
export async function missionConfig(deps: ModeDeps, mission: Mission): Promise<Config> {
  const loaded = await readConfigAt(deps.github, deps.configPath, mission.base.commit);
  if (!loaded.ok) throw new ConfigInvalidError(`the config at ${mission.base.commit.slice(0, 12)} is invalid:\n${formatConfigErrors(loaded.errors, deps.configPath)}`);
  return loaded.config;
}

/** A fresh, empty folder for this job's artifact; its path becomes the `artifact` output. */
export async function artifactFolder(deps: ModeDeps): Promise<string> {
  const dir = join(deps.tempDir, "naruto-artifact");
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  deps.log.setOutput("artifact", dir);
  return dir;
}
