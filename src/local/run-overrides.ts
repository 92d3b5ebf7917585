/**
 * What `naruto run` was told on its command line that the mission document does not hold: the
 * default agent's command (`--agent`), the queue's verify command (`--verify`), the sandbox
 * (`--sandbox`), where work directories are made (`--workdir`, or the default at the time) and
 * whether agents use their CLI's login (`--login`). They are kept
 * beside the mission, so that `naruto resume` runs the rest of it with the same agent and the
 * same verification instead of falling back to the config's (a resumed queue would otherwise
 * advance unverified). `--parallel` needs no file: it is in the mission's settings.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { PRESET_AUTH, SANDBOX_MODES, type Config } from "../config/index.ts";
import { missionDir } from "../engine/index.ts";

const runOverridesSchema = z.object({
  schema: z.literal("naruto.local-run/v1"),
  agent_command: z.string().nullable(),
  /** `--read`: what the `--agent` command needs to see. */
  agent_read: z.array(z.string()).default([]),
  verify: z.string().nullable(),
  /** `--sandbox`; runs stored before it existed read as null (the config's). */
  sandbox: z.enum(SANDBOX_MODES).nullable().default(null),
  /** Where the run made its work directories: resume finds what a killed run left there. */
  workdir: z.string().nullable().default(null),
  /** `--login`: the presets' agents use their CLI's login on this machine. */
  login: z.boolean().default(false),
});
export type RunOverrides = Omit<z.infer<typeof runOverridesSchema>, "schema">;

/** The overrides file is there but not one naruto wrote: resuming with other commands would be a guess. */
export class RunOverridesError extends Error {
  override readonly name = "RunOverridesError";
}

function overridesPath(commonDir: string, mission: string): string {
  return join(missionDir(commonDir, mission), "run.json");
}

export async function saveRunOverrides(commonDir: string, mission: string, overrides: RunOverrides): Promise<void> {
  await mkdir(missionDir(commonDir, mission), { recursive: true });
  await writeFile(overridesPath(commonDir, mission), `${JSON.stringify({ schema: "naruto.local-run/v1", ...overrides }, null, 2)}\n`);
}

/** The run's overrides; none for a mission started without a file (an older naruto, or not by `naruto run`). */
export async function loadRunOverrides(commonDir: string, mission: string): Promise<RunOverrides> {
  const path = overridesPath(commonDir, mission);
  const text = await readFile(path, "utf8").catch(() => null);
  if (text === null) return { agent_command: null, agent_read: [], verify: null, sandbox: null, workdir: null, login: false };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RunOverridesError(`${path} is not JSON: delete it to resume with the config's agent and verify command`);
  }
  const parsed = runOverridesSchema.safeParse(json);
  if (!parsed.success)
    throw new RunOverridesError(`${path} is not a naruto.local-run/v1 document: delete it to resume with the config's agent and verify command`);
  const { schema: _, ...overrides } = parsed.data;
  return overrides;
}

/** The config with the run's overrides: `--agent` and `--read` on the default profile, `--login`, `--parallel`. */
export function withOverrides(
  config: Config,
  req: { agentCommand: string | null; agentRead: readonly string[]; parallel: number | null; login: boolean },
): Config {
  const agents = { ...config.agents };
  const base = agents["default"];
  if (req.agentCommand !== null && base)
    agents["default"] = { ...base, command: req.agentCommand, preset: null, executables: [], read: [...base.read, ...req.agentRead], login: false };
  // `--read` without `--agent`: what the default profile's own command needs (a CLI installed in a folder of its own).
  else if (base && req.agentRead.length > 0) agents["default"] = { ...base, read: [...base.read, ...req.agentRead] };
  // `--login`: every profile whose CLI has a login here uses it.
  if (req.login)
    for (const [name, profile] of Object.entries(agents))
      if (profile.preset !== null && PRESET_AUTH[profile.preset].login !== null) agents[name] = { ...profile, login: true };
  const limits = req.parallel !== null ? { ...config.limits, max_parallel: req.parallel } : config.limits;
  return { ...config, agents, limits };
}
