/** Public face of `src/config/`: `.github/naruto.yml`, its schema, defaults and presets. */
export { CONFIG_PATH, defaultConfig, formatConfigErrors, loadConfig } from "./load-config.ts";
export type { AgentProfile, Config, ConfigError, LoadConfigResult, Schedule } from "./types.ts";
export { ALLOW_NAMES, SANDBOX_MODES, type AllowName, type SandboxMode } from "./schema.ts";
export { formatSize, parseSize, SIZE_HINT, type SizeResult } from "./size.ts";
export { CRON_HINT, cronMatches, latestFiring, parseCron, type Cron } from "./cron.ts";
export { ConfigSchema, DEFAULT_PROTECTED, PERMISSIONS, PROFILE_NAME_PATTERN, type Permission } from "./schema.ts";
export { DEFAULT_PRESET } from "./resolve-config.ts";
export { PRESETS, PRESET_NAMES, isPresetName, type Preset, type PresetName } from "./presets.ts";
export { DURATION_HINT, formatDuration, parseDuration, type DurationResult } from "./duration.ts";
export { BASIC_ENV_NAMES, NARUTO_ENV_NAMES, forbiddenEnvReason } from "./env-policy.ts";
export { configJsonSchema, formatConfigJsonSchema, JSON_SCHEMA_PATH } from "./json-schema.ts";
export { authVariableNames, formatFix, PRESET_AUTH, type LoginFiles, type PresetAuth } from "./preset-auth.ts";
