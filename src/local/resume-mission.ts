/**
 * Resuming a mission on this machine (`naruto resume`, and the drive after a refresh): what the
 * stopped run left (its agents, their unfinished work) is dealt with, the run's overrides hold
 * again, and the driver goes on from where the stored mission stands.
 */
import type { Config } from "../config/index.ts";
import { createLocalMissionStore } from "../store/index.ts";
import type { Mission } from "../mission/index.ts";
import type { MissionEvent } from "../mission/index.ts";
import { resumption } from "../mission/index.ts";
import { MissionNotFoundError } from "../mission/index.ts";
import { isMissionTerminal } from "../mission/index.ts";
import { gitCommonDir } from "../engine/index.ts";
import { driveMission } from "./driver.ts";
import { configAt } from "./config-at.ts";
import { keepLeftoverWork } from "./leftover-work.ts";
import type { LocalDeps } from "./local-mission.ts";
import { driverContext, pickSandbox, unsandboxedWarning, watchFor } from "./mission-context.ts";
import { holdMission } from "./mission-lock.ts";
import { stopOrphanAgents } from "./orphan-agents.ts";
import { loadRunOverrides, withOverrides } from "./run-overrides.ts";
import { defaultWorkRoot, networkWarning } from "../sandbox/index.ts";

export async function resumeLocalMission(deps: LocalDeps, input: { repoDir: string; id: string; config?: Config; verify?: string | null }): Promise<Mission> {
  const store = createLocalMissionStore({ git: deps.git, repoDir: input.repoDir });
  const stored = await store.load(input.id);
  if (!stored) throw new MissionNotFoundError(input.id);
  if (isMissionTerminal(stored.mission.status)) return stored.mission;
  deps.onMission?.(input.id);
  // One driver at a time: a live run or resume of the mission holds it, and this one refuses.
  const commonDir = await gitCommonDir(deps.git, input.repoDir);
  const release = await holdMission(commonDir, input.id);
  try {
    // Read again under the lock: the holder that just let go may have moved it on.
    const held = await store.load(input.id);
    if (!held) throw new MissionNotFoundError(input.id);
    if (isMissionTerminal(held.mission.status)) return held.mission;
    return await resumeHeld(deps, { ...input, commonDir }, held.mission);
  } finally {
    await release();
  }
}

/** Drives a mission whose driver lock the caller holds, from where it stands (resume, and after a refresh). */
export async function resumeHeld(
  deps: LocalDeps,
  input: { repoDir: string; commonDir: string; config?: Config; verify?: string | null },
  m: Mission,
): Promise<Mission> {
  // What the stopped run left: its agents, still running, and their unfinished work.
  // The run's --agent, --verify, --sandbox and --workdir hold for the rest of the mission (see run-overrides.ts).
  const overrides = await loadRunOverrides(input.commonDir, m.id);
  const config = withOverrides(input.config ?? (await configAt(deps.git, input.repoDir, m.base.commit)), {
    agentCommand: overrides.agent_command,
    agentRead: overrides.agent_read,
    parallel: null,
    login: overrides.login,
  });
  const workRoot = overrides.workdir ?? defaultWorkRoot(deps.env, { override: config.workdir, cwd: deps.cwd });
  const sandbox = await pickSandbox(deps, overrides.sandbox ?? config.sandbox);
  const orphans = await stopOrphanAgents(m);
  const work = await keepLeftoverWork({ git: deps.git, repoDir: input.repoDir, mission: m, workRoot, now: deps.now, maxFileSize: config.limits.max_file_size });
  if (sandbox.kind === "none") deps.progress.error(new Error(unsandboxedWarning(sandbox)));
  const hostNetwork = networkWarning(sandbox);
  if (hostNetwork !== null) deps.progress.error(new Error(hostNetwork));
  const tamper = await watchFor(deps, input, m.id, sandbox);
  const ctx = driverContext(deps, input, {
    config,
    verify: input.verify ?? overrides.verify ?? config.queue.verify,
    planText: m.plan_text,
    sandbox,
    workRoot,
    tamper,
  });
  const r = resumption(m, deps.now().toISOString(), { stoppedProcesses: orphans.length, work });
  const first: MissionEvent[] = [...r.events];
  if (r.plan) {
    const planned = await ctx.plan(m, deps.shutdown ?? new AbortController().signal);
    if (planned !== null) first.push(planned);
  }
  return driveMission(ctx, m.id, first, { checkpoints: r.checkpoints, review: r.review });
}
