/**
 * `integrate` (write token, no agent): the one job that changes the repository and the state.
 * It re-checks what this run's agent jobs left (plan, work bundles, review), records it, runs the
 * merge queue and pushes the queue branch with compare-and-swap, opens or updates the queue pull
 * request and the tracking comment, and dispatches what became ready — one run per attempt.
 * Runs of one mission take turns (`concurrency: naruto-<mission>` with `queue: max`).
 */
import type { Config } from "../../config/index.ts";
import { queueRefName } from "../../git/queue-ref.ts";
import { carryOut } from "../../github-driver/carry-out.ts";
import { ensureQueueBranch } from "../../github-driver/start-mission.ts";
import type { Mission } from "../../mission/document.ts";
import { IllegalEventError } from "../../mission/errors.ts";
import type { CheckpointOrder, MissionCommand, MissionEvent } from "../../mission/events.ts";
import { applyEvent } from "../../mission/store.ts";
import { codeSpan } from "../../report/escape.ts";
import type { DispatchInput, ModeDeps } from "../deps.ts";
import { planEvent } from "../integrate/plan-event.ts";
import { queueIntegrator } from "../integrate/queue.ts";
import { reviewEvent } from "../integrate/review-event.ts";
import { workEvents } from "../integrate/work-events.ts";
import { fetchRefs, hasCommit, scrubbedEnv } from "../remote.ts";
import { ConfigInvalidError, engineContext, loadMission, missionConfig, missionInput } from "./shared.ts";

export async function integrateMode(deps: ModeDeps, input: { mission: string; artifacts: string; dispatch: DispatchInput }): Promise<void> {
  const id = missionInput(input.mission);
  deps.log.setOutput("mission", id);
  const { git, workspace: repoDir, remote, log } = deps;
  const loaded = (await loadMission(deps, id)).mission;
  let config: Config;
  try {
    config = await missionConfig(deps, loaded);
  } catch (error) {
    // A mission that cannot even be planned under its config ends, saying why.
    if (!(error instanceof ConfigInvalidError) || loaded.status !== "planning") throw error;
    const failed = await applyEvent(deps.store, id, { type: "planning_failed", at: deps.now().toISOString(), reason: error.message });
    await carryOut(deps, failed);
    return;
  }
  const queueRef = queueRefName(id);
  await ensureQueueBranch(deps.github, loaded, { reset: false });
  await fetchRefs(git, repoDir, remote, [`+${queueRef}:${queueRef}`]);
  if (!(await hasCommit(git, repoDir, loaded.base.commit))) await fetchRefs(git, repoDir, remote, [`+${loaded.base.commit}:refs/naruto/base/${id}`]);

  let mission = loaded;
  const commands: MissionCommand[] = [];
  const waiting = waitingCheckpoints(loaded);
  if (waiting.length > 0) commands.push({ type: "integrate", checkpoints: waiting });
  const apply = async (event: MissionEvent) => {
    try {
      const result = await applyEvent(deps.store, id, event);
      mission = result.mission;
      commands.push(...result.commands);
    } catch (error) {
      if (!(error instanceof IllegalEventError)) throw error;
      log.warning(`${event.type} not applied: ${error.message}`);
    }
  };
  const at = deps.now().toISOString();
  const verifyEnv = scrubbedEnv(deps.env);
  switch (input.dispatch.phase) {
    case "plan": {
      const event = await planEvent({ folder: input.artifacts, mission, config, at, runUrl: deps.runUrl });
      if (event) await apply(event);
      break;
    }
    case "work":
      for (const event of await workEvents({ folder: input.artifacts, mission, config, git, repoDir, remote, queueRef, entries: input.dispatch.items, at, runUrl: deps.runUrl, log })) {
        await apply(event);
      }
      break;
    case "review": {
      const event = await reviewEvent({ folder: input.artifacts, mission, config, git, repoDir, env: verifyEnv, now: deps.now });
      if (event) await apply(event);
      break;
    }
    case null:
      break;
  }
  // The verify command gets the basic environment and queue.env only, never the job's token.
  const integrate = queueIntegrator({ ...(await engineContext(deps, config)), env: verifyEnv, remote, log });
  const done = await carryOut(deps, { mission, commands }, { integrate });
  log.setOutput("matrix", JSON.stringify(done.dispatched.map((d) => ({ item: d.item, attempt: d.attempt }))));
  await log.summary(integrateSummary(done.mission, done.dispatched));
}

/**
 * Checkpoints an earlier integrate run recorded but did not get onto the queue (it stopped in
 * between): they go first, so nothing recorded as finished is left behind.
 */
function waitingCheckpoints(mission: Mission): CheckpointOrder[] {
  const out: CheckpointOrder[] = [];
  for (const item of mission.items) {
    const last = item.attempts.at(-1);
    if (last?.status === "integrating" && last.checkpoint && last.base) out.push({ item: item.id, attempt: last.n, commit: last.checkpoint, base: last.base });
  }
  return out;
}

function integrateSummary(mission: Mission, dispatched: readonly { item: string; attempt: number; runUrl: string | null }[]): string {
  const rows = mission.items.map((i) => `| ${codeSpan(i.id)} | ${i.status} | ${i.attempts.length} |`);
  const started = dispatched.length === 0 ? "" : `\n\nStarted: ${dispatched.map((d) => `${codeSpan(`${d.item}#${d.attempt}`)}${d.runUrl?.startsWith("http") ? ` ([run](${d.runUrl}))` : ""}`).join(", ")}`;
  return `### naruto ${codeSpan(mission.id)} · ${mission.status}\n\nQueue \`${mission.queue.branch}\` at \`${mission.queue.head.slice(0, 12)}\`${started}\n\n| item | status | attempts |\n|---|---|---|\n${rows.join("\n")}\n`;
}
