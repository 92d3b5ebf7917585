/**
 * What every untrusted process of a mission gets from its profile when it runs in the sandbox:
 * the network or not, and the paths it may read besides its work directory — the profile's
 * `read:`, where its CLI is installed, and the folder of the Node.js that runs naruto (agents
 * and presets run `node`). One place, so the agent, the planner, the review agent and both kinds
 * of `verify` are contained alike.
 */
import { join } from "node:path";
import type { AgentProfile } from "../config/index.ts";
import { executableMounts } from "../sandbox/index.ts";

export interface Containment {
  readonly network: boolean;
  readonly readOnly: readonly string[];
}

/**
 * @param env the runner's environment (for `~` and PATH)
 * @param nodePath the Node.js running naruto (`process.execPath`, given by an entry point)
 */
export async function containmentOf(profile: Pick<AgentProfile, "network" | "read" | "executables"> | null, env: Readonly<Record<string, string | undefined>>, nodePath: string | null): Promise<Containment> {
  const home = env.HOME ?? "/";
  const expand = (p: string) => (p === "~" ? home : p.startsWith("~/") ? join(home, p.slice(2)) : p);
  const read = new Set<string>((profile?.read ?? []).map(expand));
  for (const mount of await executableMounts(profile?.executables ?? [], env.PATH)) read.add(mount);
  if (nodePath !== null) for (const mount of await executableMounts([nodePath], env.PATH)) read.add(mount);
  return { network: profile?.network ?? true, readOnly: [...read] };
}
