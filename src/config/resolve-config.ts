import { normalizePath, pathKey, type RepoPath } from "../plan/index.ts";
import { didYouMean } from "./did-you-mean.ts";
import { parseDuration } from "./duration.ts";
import { PRESET_NAMES, PRESETS, type PresetName } from "./presets.ts";
import { parseCron } from "./cron.ts";
import { MAX_MEMORY_BYTES, parseSize } from "./size.ts";
import type { ConfigFile } from "./schema.ts";
import type { AgentProfile, Config, ConfigError, LoadConfigResult, Schedule } from "./types.ts";

/** With no `default` profile in the file, `default` is this preset. */
export const DEFAULT_PRESET: PresetName = "claude";

/**
 * Applies the rules that span fields, after the schema has checked each field on its own:
 * presets and the `default` profile, profile timeouts (default `limits.item_timeout`), profile
 * references of `planner` and `arbiter`, and protected paths through the one path normalizer.
 */
export function resolveConfig(file: ConfigFile): LoadConfigResult {
  const errors: ConfigError[] = [];
  const itemTimeout = durationMs(file.limits.item_timeout);
  const agents = resolveAgents(file, itemTimeout, errors);
  const names = Object.keys(agents);

  const planner = file.planner.agent;
  if (agents[planner] === undefined) errors.push({ path: "planner.agent", message: unknownProfile(planner, names) });
  const review = file.arbiter.agent === null || file.arbiter.agent === "none" ? null : file.arbiter.agent;
  if (review !== null && agents[review] === undefined) {
    errors.push({ path: "arbiter.agent", message: `${unknownProfile(review, names)}, or none` });
  }

  const protectedPaths: RepoPath[] = [];
  const seen = new Set<string>();
  file.protected.forEach((written, i) => {
    const normalized = normalizePath(written);
    if (!normalized.ok) errors.push({ path: `protected[${i}]`, message: normalized.message });
    else if (!seen.has(pathKey(normalized.value))) {
      seen.add(pathKey(normalized.value));
      protectedPaths.push(normalized.value);
    }
  });

  const schedules = resolveSchedules(file, errors);

  if (errors.length > 0) return { ok: false, errors };
  const config: Config = {
    version: 1,
    agents,
    planner: { agent: planner },
    arbiter: { agent: review },
    queue: {
      verify: file.queue.verify ?? null,
      batch: file.queue.batch,
      env: file.queue.env,
      verify_report: file.queue.verify_report ?? null,
      red_base: file.queue.red_base,
      confirm_runs: file.queue.confirm_runs,
      max_flips: file.queue.max_flips,
      refresh: file.queue.refresh,
    },
    limits: {
      max_parallel: file.limits.max_parallel,
      max_attempts: file.limits.max_attempts,
      item_timeout: itemTimeout,
      queue_timeout: durationMs(file.limits.queue_timeout),
      mission_timeout: durationMs(file.limits.mission_timeout),
      max_items: file.limits.max_items,
      max_cost_usd: file.limits.max_cost_usd ?? null,
      min_permission: file.limits.min_permission,
      max_file_size: sizeBytes(file.limits.max_file_size),
      agent_processes: file.limits.agent_processes,
      agent_memory: sizeBytes(file.limits.agent_memory, MAX_MEMORY_BYTES),
      agent_file_size: sizeBytes(file.limits.agent_file_size),
      agent_tmp_size: sizeBytes(file.limits.agent_tmp_size),
    },
    protected: protectedPaths,
    allow_protected: file.allow_protected,
    allow: [...new Set(file.allow)],
    allow_bots: [...new Set(file.allow_bots)],
    approval: file.approval,
    schedules,
    sandbox: file.sandbox,
    workdir: file.workdir ?? null,
  };
  return { ok: true, config };
}

function resolveSchedules(file: ConfigFile, errors: ConfigError[]): Schedule[] {
  const schedules: Schedule[] = [];
  const names = new Set<string>();
  file.schedules.forEach((written, i) => {
    if (names.has(written.name)) errors.push({ path: `schedules[${i}].name`, message: `${written.name} names two schedules; names are unique` });
    names.add(written.name);
    const cron = parseCron(written.cron);
    let plan: string | null = null;
    if (written.plan !== undefined) {
      const normalized = normalizePath(written.plan);
      if (!normalized.ok) errors.push({ path: `schedules[${i}].plan`, message: normalized.message });
      else if (normalized.value.subtree) errors.push({ path: `schedules[${i}].plan`, message: "name a plan file, not a folder" });
      else plan = normalized.value.path;
    }
    if (cron.ok) schedules.push({ name: written.name, cron: cron.cron, task: written.task ?? null, plan, approval: written.approval ?? file.approval });
  });
  return schedules;
}

function resolveAgents(file: ConfigFile, itemTimeout: number, errors: ConfigError[]): Record<string, AgentProfile> {
  const fromPreset = (name: string, preset: PresetName): AgentProfile => ({
    name,
    command: PRESETS[preset].command,
    timeout: itemTimeout,
    env: PRESETS[preset].env,
    description: PRESETS[preset].description,
    preset,
    network: true,
    read: [],
    executables: PRESETS[preset].executables,
    login: false,
  });
  const agents: Record<string, AgentProfile> = { default: fromPreset("default", DEFAULT_PRESET) };
  for (const preset of PRESET_NAMES) agents[preset] = fromPreset(preset, preset);

  for (const [name, profile] of Object.entries(file.agents)) {
    if (name === "none") {
      errors.push({ path: "agents.none", message: `"none" means no agent (as in arbiter.agent: none); choose another name` });
      continue;
    }
    const base = profile.preset === undefined ? null : PRESETS[profile.preset];
    agents[name] = {
      name,
      // The schema guarantees exactly one of `preset` and `command`.
      command: profile.command ?? base?.command ?? "",
      timeout: profile.timeout === undefined ? itemTimeout : durationMs(profile.timeout),
      env: [...new Set([...(base?.env ?? []), ...profile.env])],
      description: profile.description ?? base?.description ?? null,
      preset: profile.preset ?? null,
      network: profile.network,
      read: profile.read,
      executables: base?.executables ?? [],
      login: profile.login,
    };
  }
  return agents;
}

function unknownProfile(name: string, known: readonly string[]): string {
  const near = didYouMean(name, known);
  return `unknown agent profile "${name}"${near === null ? "" : ` (did you mean "${near}"?)`}; profiles: ${known.join(", ")}`;
}

function durationMs(text: string): number {
  const parsed = parseDuration(text);
  // The schema already rejected invalid durations; a failure here is a bug in naruto.
  if (!parsed.ok) throw new Error(`naruto bug: duration ${JSON.stringify(text)} passed the schema: ${parsed.message}`);
  return parsed.ms;
}

function sizeBytes(value: string | number, maxBytes?: number): number {
  const parsed = parseSize(value, maxBytes);
  // The schema already rejected invalid sizes; a failure here is a bug in naruto.
  if (!parsed.ok) throw new Error(`naruto bug: size ${JSON.stringify(value)} passed the schema: ${parsed.message}`);
  return parsed.bytes;
}
