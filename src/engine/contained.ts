/**
 * What every untrusted process of a mission gets from its profile when it runs in the sandbox:
 * what it reaches of the network, and what it may read besides its work directory — the profile's
 * `read:`, and the programs it runs (its preset's CLI, the Node.js that runs naruto: agents and
 * presets run `node`; the program a plain command starts), each shown as the folders that hold it
 * and what it loads, never the home or the folders around it (src/sandbox/executables.ts), and
 * each file a plain command names by an absolute path, that file alone — and, from the config,
 * what it may take of the machine. One place, so the agent, the planner, the review agent and
 * both kinds of `verify` are contained alike.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { commandNamed, placeLogin, readLogin } from "../agent/index.ts";
import { PRESET_AUTH, type AgentProfile, type Config } from "../config/index.ts";
import { executableMounts, type NetworkChoice, type ProgramLink, type SandboxLimits } from "../sandbox/index.ts";
import type { EngineContext } from "./context.ts";

export interface Containment {
  readonly network: NetworkChoice;
  readonly readOnly: readonly string[];
  /** Programs' names on PATH, made in the sandbox as links to their real files (see executables.ts). */
  readonly links: readonly ProgramLink[];
}

/** The config's per-agent limits, as the sandbox applies them. */
export function sandboxLimits(limits: Config["limits"]): SandboxLimits {
  return { processes: limits.agent_processes, memory: limits.agent_memory, fileSize: limits.agent_file_size, tmp: limits.agent_tmp_size };
}

/**
 * Throws `ProgramNotShownError` when a program of the profile could only be shown with a folder
 * naruto never shows (HOME, its work folder, the repository's git directory).
 *
 * @param ctx `env` for `~` and PATH; `nodePath`, the Node.js running naruto (`process.execPath`,
 *   given by an entry point); `workRoot` and `commonDir`, naruto's own folders, never shown.
 */
export async function containmentOf(
  profile: Pick<AgentProfile, "network" | "read" | "executables" | "command" | "preset"> | null,
  ctx: Pick<EngineContext, "env" | "nodePath" | "workRoot" | "commonDir">,
): Promise<Containment> {
  const home = ctx.env.HOME ?? "/";
  const expand = (p: string) => (p === "~" ? home : p.startsWith("~/") ? join(home, p.slice(2)) : p);
  const read = new Set<string>((profile?.read ?? []).map(expand));
  const hidden = [ctx.workRoot, ctx.commonDir];
  const programs = [...shownPrograms(profile), ...(ctx.nodePath === null ? [] : [ctx.nodePath])];
  const view = await executableMounts(programs, { path: ctx.env.PATH, home: ctx.env.HOME ?? null, hidden });
  for (const path of view.readOnly) read.add(path);
  // A plain command may name a file of the user's by its path (`sh /opt/agents/run.sh`): that file alone.
  const named = profile === null || profile.preset !== null ? [] : commandNamed(profile.command).paths;
  for (const path of named) if (!hidden.some((h) => isWithin(path, h)) && (await isFile(path))) read.add(path);
  return { network: profile?.network ?? true, readOnly: [...read], links: view.links };
}

/**
 * The programs a profile's sandbox shows: its `executables` (a preset's CLI), and the program a
 * plain command starts by name (found on PATH). A preset's command names only naruto's variables.
 */
export function shownPrograms(profile: Pick<AgentProfile, "executables" | "command" | "preset"> | null): string[] {
  if (profile === null) return [];
  const named = profile.preset !== null ? [] : commandNamed(profile.command).programs;
  return [...new Set([...profile.executables, ...named])];
}

function isWithin(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}

/**
 * Gives an agent whose profile says `login: true` its CLI's login on this machine: a copy in
 * its private HOME (src/agent/cli-login.ts), read afresh for each run, so that a login the user
 * refreshed meanwhile is the one it gets. Null when done, or not asked for; else why it cannot
 * (not logged in here, or an access token that would expire before the run could end).
 */
export async function giveLogin(
  profile: Pick<AgentProfile, "login" | "preset" | "timeout">,
  home: string,
  ctx: { readonly env: Readonly<Record<string, string | undefined>>; readonly now: () => Date },
): Promise<string | null> {
  if (!profile.login || profile.preset === null) return null;
  const auth = PRESET_AUTH[profile.preset];
  if (auth.login === null) return `${auth.cli} has no login naruto can show its agents`;
  const copy = await readLogin({ login: auth.login, cli: auth.cli, env: ctx.env, now: ctx.now(), validForMs: profile.timeout });
  if (!copy.ok) return copy.why;
  await placeLogin(copy, home);
  return null;
}
