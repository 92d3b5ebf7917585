/**
 * Agents a stopped runner left running. Each agent leads its own process group (run-agent.ts),
 * so a `naruto run` killed outright (SIGKILL, the OOM killer, a closed terminal's SIGHUP to the
 * runner alone) leaves its agents working on in the mission's work trees. `naruto resume` starts
 * those items again in the same work trees; an old agent still writing there would mix its
 * edits into the new attempt's checkpoint, or write its result file over the new one. So resume
 * first stops every process of the mission: each carries `NARUTO_MISSION=<id>` (agent-env.ts).
 *
 * Unless the runner that started them still lives: then the mission was not stopped at all, and
 * a second driver beside it would start every running item twice. The driver lock
 * (mission-lock.ts) normally says so first; this check also catches a runner that holds none
 * (an older naruto). A live runner is told apart by pid, recorded in each attempt it started,
 * together with an agent of the mission that is its child: a reused pid alone does not look like
 * one. Linux only, like leftovers.ts: elsewhere the process table is not read.
 */
import type { Mission } from "../mission/document.ts";
import { killProcessesWithEnv, processesWithEnv } from "../agent/leftovers.ts";
import { MissionStillRunningError } from "./mission-lock.ts";

export interface OrphanDeps {
  /** Folder of the process table (default /proc). */
  readonly proc?: string;
  readonly kill?: (pid: number, signal: NodeJS.Signals) => void;
  /** Whether a process still runs (default: it is in the process table and not a zombie). */
  readonly gone?: (pid: number) => Promise<boolean>;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The pids of the runners that started the mission's unfinished attempts (`runner: "pid N"`). */
export function runnerPids(mission: Mission): Set<number> {
  const pids = new Set<number>();
  for (const item of mission.items) {
    const last = item.attempts.at(-1);
    if (!last || (last.status !== "dispatched" && last.status !== "running")) continue;
    const match = /^pid (\d+)$/.exec(last.runner ?? "");
    if (match) pids.add(Number(match[1]));
  }
  return pids;
}

/**
 * Stops (SIGKILL) what the mission's dead runner left running and waits until it is gone;
 * returns the pids. Throws {@link MissionStillRunningError} when that runner still lives.
 */
export async function stopOrphanAgents(mission: Mission, deps: OrphanDeps = {}): Promise<number[]> {
  const entry = `NARUTO_MISSION=${mission.id}`;
  const table = deps.proc === undefined ? {} : { proc: deps.proc };
  const runners = runnerPids(mission);
  const live = (await processesWithEnv(entry, table)).find((p) => runners.has(p.ppid) && p.ppid !== process.pid);
  if (live) throw new MissionStillRunningError(mission.id, live.ppid);

  const kill = deps.kill ?? ((pid: number, signal: NodeJS.Signals) => void process.kill(pid, signal));
  const killed = await killProcessesWithEnv(entry, { ...table, kill });
  const gone = deps.gone ?? (async (pid: number) => !(await processesWithEnv(entry, table)).some((p) => p.pid === pid));
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // A killed process takes the kernel a moment to tear down: wait, so that the work trees resume
  // reuses are quiet when it starts.
  for (const pid of killed) {
    for (let waited = 0; waited < 5_000 && !(await gone(pid)); waited += 20) await sleep(20);
  }
  return killed;
}

