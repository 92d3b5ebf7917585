/**
 * Agents a stopped runner left running. Each agent leads its own process group (run-agent.ts),
 * so a `naruto run` killed outright (SIGKILL, the OOM killer, a closed terminal's SIGHUP to the
 * runner alone) leaves its agents working on in the mission's work trees. `naruto resume` starts
 * those items again in the same work trees; an old agent still writing there would mix its
 * edits into the new attempt's checkpoint, or write its result file over the new one. So resume
 * first stops every process of the mission: each carries `NARUTO_MISSION=<id>` (agent-env.ts).
 * Only while it holds the mission's driver lock (mission-lock.ts): then no live run drives it.
 * Linux only, like leftovers.ts: elsewhere the process table is not read.
 */
import type { Mission } from "../mission/index.ts";
import { killProcessesWithEnv, processesWithEnv } from "../sandbox/index.ts";

export interface OrphanDeps {
  /** Folder of the process table (default /proc). */
  readonly proc?: string;
  readonly kill?: (pid: number, signal: NodeJS.Signals) => void;
  /** Whether a process still runs (default: it is in the process table and not a zombie). */
  readonly gone?: (pid: number) => Promise<boolean>;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Stops (SIGKILL) what the mission's dead runner left running and waits until it is gone; returns the pids. */
export async function stopOrphanAgents(mission: Mission, deps: OrphanDeps = {}): Promise<number[]> {
  const entry = `NARUTO_MISSION=${mission.id}`;
  const table = deps.proc === undefined ? {} : { proc: deps.proc };
  const kill = deps.kill ?? ((pid: number, signal: NodeJS.Signals) => void process.kill(pid, signal));
  const killed = await killProcessesWithEnv(entry, { ...table, kill });
  const gone = deps.gone ?? (async (pid: number) => !(await processesWithEnv(entry, table)).includes(pid));
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // A killed process takes the kernel a moment to tear down: wait, so that the work trees resume
  // reuses are quiet when it starts.
  for (const pid of killed) {
    for (let waited = 0; waited < 5_000 && !(await gone(pid)); waited += 20) await sleep(20);
  }
  return killed;
}
