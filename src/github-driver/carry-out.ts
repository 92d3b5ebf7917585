/**
 * The GitHub driver's half of the engine (DESIGN.md §6): the engine's commands become workflow
 * dispatches, run cancellations and comment updates, and what they cause comes back as events
 * through the store's compare-and-swap. Shared by every job that writes state and by the App.
 *
 * One workflow run per started attempt: a slow item never holds back the integration of a fast
 * one, because each run's queue and publish jobs apply its own result as soon as it is there.
 */
import type { Mission } from "../mission/document.ts";
import { IllegalEventError } from "../mission/errors.ts";
import type { AttemptOrder, CheckpointOrder, MissionCommand, MissionEvent } from "../mission/events.ts";
import { applyEvent } from "../mission/store.ts";
import type { DriverDeps } from "./deps.ts";
import { runIdOf } from "./mission-id.ts";
import { message, publishMission } from "./publish.ts";

/** Integrates checkpoints and returns the events that say how it went (only the publish job can). */
export type IntegrateCheckpoints = (mission: Mission, checkpoints: readonly CheckpointOrder[]) => Promise<readonly MissionEvent[]>;

export interface CarryOutResult {
  readonly mission: Mission;
  /** The work runs dispatched, one per attempt. */
  readonly dispatched: readonly { item: string; attempt: number; runUrl: string | null }[];
}

/**
 * Carries out `commands` (from applying an event to `mission`) and every command the events they
 * cause lead to, then publishes the mission. Without `integrate`, checkpoints are left for the
 * queue and publish jobs: an integrate-only run is dispatched for them.
 */
export async function carryOut(
  deps: DriverDeps,
  start: { mission: Mission; commands: readonly MissionCommand[] },
  options: { integrate?: IntegrateCheckpoints; publish?: boolean } = {},
): Promise<CarryOutResult> {
  let mission = start.mission;
  const queue: MissionCommand[] = [...start.commands];
  const dispatched: { item: string; attempt: number; runUrl: string | null }[] = [];
  let verdict = false;
  let integrateRunAsked = false;

  const apply = async (event: MissionEvent): Promise<void> => {
    try {
      const result = await applyEvent(deps.store, mission.id, event);
      mission = result.mission;
      queue.push(...result.commands);
    } catch (error) {
      // Something else decided first (the attempt was cancelled, the mission finished): the
      // stored mission wins; this event is logged and dropped.
      if (!(error instanceof IllegalEventError)) throw error;
      deps.log.warning(`${event.type} not applied: ${error.message}`);
    }
  };

  for (let command = queue.shift(); command !== undefined; command = queue.shift()) {
    switch (command.type) {
      case "plan":
        await dispatch(deps, mission.id, "plan");
        break;
      case "start_attempts":
        for (const order of command.attempts) {
          const run = await startAttempt(deps, mission, order);
          if (run === null) continue;
          dispatched.push({ item: order.item, attempt: order.attempt, runUrl: run.runUrl });
          await apply({ type: "attempt_started", at: deps.now().toISOString(), item: order.item, attempt: order.attempt, base: mission.queue.head, runner: run.runUrl });
        }
        break;
      case "cancel_attempts":
        await cancelRuns(deps, mission, command.attempts);
        break;
      case "integrate":
        if (options.integrate) {
          for (const event of await options.integrate(mission, command.checkpoints)) await apply(event);
        } else if (!integrateRunAsked) {
          // Only the publish job may push: a run with no work items is just its queue and publish jobs.
          integrateRunAsked = true;
          await dispatch(deps, mission.id, "work", "[]");
        }
        break;
      case "review":
        await dispatch(deps, mission.id, "review");
        break;
      case "report":
        break;
      case "finish":
        verdict = verdict || command.status === "done";
        break;
    }
  }
  if (options.publish !== false) await publishMission(deps, mission, { verdict });
  return { mission, dispatched };
}

/** Dispatches one workflow run for one attempt; null when the dispatch failed (logged). */
async function startAttempt(deps: DriverDeps, mission: Mission, order: AttemptOrder): Promise<{ runUrl: string | null } | null> {
  const items = JSON.stringify([{ item: order.item, attempt: order.attempt }]);
  const run = await dispatch(deps, mission.id, "work", items);
  if (run === null) return null;
  return { runUrl: run.runUrl ?? (run.runId === null ? null : `run ${run.runId}`) };
}

async function dispatch(deps: DriverDeps, mission: string, phase: "plan" | "work" | "review", items?: string) {
  const inputs = { mission, phase, ...(items === undefined ? {} : { items }) };
  try {
    const run = await deps.github.dispatchWorkflow({ workflow: deps.workflow, ref: deps.ref, inputs });
    deps.log.info(`dispatched ${phase}${items ? ` ${items}` : ""} for ${mission}${run.runUrl ? `: ${run.runUrl}` : ""}`);
    return run;
  } catch (error) {
    // The attempt stays dispatched without a run: the sweep times it out and it is retried.
    deps.log.warning(`could not dispatch ${phase} for ${mission}: ${message(error)}`);
    return null;
  }
}

/** Asks GitHub to cancel the runs of the attempts the engine stopped. */
export async function cancelRuns(deps: DriverDeps, mission: Mission, attempts: readonly { item: string; attempt: number }[]): Promise<void> {
  for (const a of attempts) {
    const runner = mission.items.find((i) => i.id === a.item)?.attempts.find((x) => x.n === a.attempt)?.runner ?? null;
    const runId = runIdOf(runner);
    if (runId === null) continue;
    try {
      const cancelled = await deps.github.cancelRun({ runId });
      deps.log.info(`${cancelled ? "cancelled" : "already finished:"} run ${runId} of ${a.item}#${a.attempt}`);
    } catch (error) {
      deps.log.warning(`could not cancel run ${runId} of ${a.item}#${a.attempt}: ${message(error)}`);
    }
  }
}
