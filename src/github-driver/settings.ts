import type { Config } from "../config/index.ts";
import { loadConfig, type LoadConfigResult } from "../config/index.ts";
import type { GitHubPort } from "../github/index.ts";
import type { MissionSettings } from "../mission/index.ts";

/** A mission's settings from the config (docs/architecture.md): the limits it runs under for good. */
export function missionSettings(config: Config, options: { approval: boolean; strict: boolean }): MissionSettings {
  return {
    max_parallel: config.limits.max_parallel,
    max_attempts: config.limits.max_attempts,
    item_timeout_ms: config.limits.item_timeout,
    queue_timeout_ms: config.limits.queue_timeout,
    mission_timeout_ms: config.limits.mission_timeout,
    batch: config.queue.batch,
    approval: options.approval || config.approval,
    max_cost_usd: config.limits.max_cost_usd,
    strict: options.strict,
  };
}

/**
 * The config as committed at `ref` (a commit or branch), read through the API; defaults when the
 * file does not exist. Read at the mission's base: reviewed code, never what an agent wrote.
 */
export async function readConfigAt(github: GitHubPort, path: string, ref: string): Promise<LoadConfigResult> {
  return loadConfig(await github.readFile({ path, ref }));
}
