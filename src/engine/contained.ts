/**
 * What every untrusted process of a mission gets from its profile when it runs in the sandbox:
 * the network or not, and what it may read besides its work directory — the profile's `read:`,
 * and the programs it runs (its preset's CLI, the Node.js that runs naruto: agents and presets run
 * `node`), each shown as the folders that hold it and what it loads, never the home or the
 * folders around it (src/sandbox/executables.ts). One place, so the agent, the planner, the
 * review agent and both kinds of `verify` are contained alike.
 */
import { join } from "node:path";
import type { AgentProfile } from "../config/index.ts";
import { executableMounts, type ProgramLink } from "../sandbox/index.ts";
import type { EngineContext } from "./context.ts";

export interface Containment {
  readonly network: boolean;
  readonly readOnly: readonly string[];
  /** Programs' names on PATH, made in the sandbox as links to their real files (see executables.ts). */
  readonly links: readonly ProgramLink[];
}

/**
 * Throws `ProgramNotShownError` when a program of the profile could only be shown with a folder
 * naruto never shows (HOME, its work folder, the repository's git directory).
 *
 * @param ctx `env` for `~` and PATH; `nodePath`, the Node.js running naruto (`process.execPath`,
 *   given by an entry point); `workRoot` and `commonDir`, naruto's own folders, never shown.
 */
export async function containmentOf(
  profile: Pick<AgentProfile, "network" | "read" | "executables"> | null,
  ctx: Pick<EngineContext, "env" | "nodePath" | "workRoot" | "commonDir">,
): Promise<Containment> {
  const home = ctx.env.HOME ?? "/";
  const expand = (p: string) => (p === "~" ? home : p.startsWith("~/") ? join(home, p.slice(2)) : p);
  const read = new Set<string>((profile?.read ?? []).map(expand));
  const programs = [...(profile?.executables ?? []), ...(ctx.nodePath === null ? [] : [ctx.nodePath])];
  const view = await executableMounts(programs, { path: ctx.env.PATH, home: ctx.env.HOME ?? null, hidden: [ctx.workRoot, ctx.commonDir] });
  for (const path of view.readOnly) read.add(path);
  return { network: profile?.network ?? true, readOnly: [...read], links: view.links };
}
