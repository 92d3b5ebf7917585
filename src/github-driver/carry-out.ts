/**
 * The GitHub driver's half of the engine (docs/architecture.md): the engine's commands become workflow
 * dispatches, run cancellations and comment updates, and what they cause comes back as events
 * through the store's compare-and-swap. Shared by every job that writes state and by the App.
 *
 * The attempts one `start_attempts` command starts are one workflow run, a matrix of up to 256
 * legs (docs/architecture.md): one dispatch, one run's events and one queue/publish for what became ready
 * together, instead of one of each per attempt. Cancelling an attempt cancels its run only once
 * no other attempt of that run is still in flight; a leg left running is ignored when it ends.
 */
import type { Mission } from "../mission/index.ts";
import type { AttemptOrder, CheckpointOrder, MissionCommand, MissionEvent } from "../mission/index.ts";
import { applyEvents } from "../mission/index.ts";
import type { DriverDeps } from "./deps.ts";
import { runIdOf } from "./mission-id.ts";
import { message, publishMission } from "./publish.ts";

/** Integrates checkpoints and returns the events that say how it went (only the publish job can). */
export type IntegrateCheckpoints = (mission: Mission, checkpoints: readonly CheckpointOrder[]) => Promise<readonly MissionEvent[]>;

export interface CarryOutResult {
  readonly mission: Mission;
  /** The attempts dispatched, each with the run of its batch. */
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

  // Several events at once are one save (a batch's starts, a batch's integration).
  const apply = async (events: readonly MissionEvent[]): Promise<void> => {
    if (events.length === 0) return;
    const result = await applyEvents(deps.store, mission.id, events);
    mission = result.mission;
    queue.push(...result.commands);
    // Something else decided first (the attempt was cancelled, the mission finished): the
    // stored mission wins; such an event is logged and dropped.
    result.outcomes.forEach((o, i) => {
      if (o.kind === "illegal") deps.log.warning(`${events[i]?.type ?? "event"} not applied: ${o.error.message}`);
    });
  };

  for (let command = queue.shift(); command !== undefined; command = queue.shift()) {
    switch (command.type) {
      case "plan":
        await dispatch(deps, mission.id, "plan");
        break;
      case "start_attempts": {
        // Every start waiting in the queue goes into the same run (several events applied
        // together each ask for their own: a sweep that interrupts a whole batch, a publish).
        const orders = [...command.attempts];
        for (let i = queue.findIndex((c) => c.type === "start_attempts"); i !== -1; i = queue.findIndex((c) => c.type === "start_attempts")) {
          const [more] = queue.splice(i, 1);
          if (more?.type === "start_attempts") orders.push(...more.attempts);
        }
        for (const batch of batches(orders)) {
          const run = await startBatch(deps, mission, batch);
          if (run === null) continue;
          const at = deps.now().toISOString();
          for (const order of batch) dispatched.push({ item: order.item, attempt: order.attempt, runUrl: run.runUrl });
          // Dispatched, not started: the legs wait for runners (at most the account's quota runs
          // at once), and an attempt's clock starts only when its job does (the App's
          // workflow_job event, or the sweep reading the job's start).
          await apply(
            batch.map((order) => ({ type: "attempt_dispatched", at, item: order.item, attempt: order.attempt, base: mission.queue.head, runner: run.runUrl })),
          );
        }
        break;
      }
      case "cancel_attempts":
        await cancelRuns(deps, mission, command.attempts);
        break;
      case "integrate":
        if (options.integrate) {
          await apply(await options.integrate(mission, command.checkpoints));
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

/** GitHub's limit of legs in one matrix. */
export const MAX_MATRIX_LEGS = 256;

function batches(orders: readonly AttemptOrder[]): AttemptOrder[][] {
  const out: AttemptOrder[][] = [];
  for (let i = 0; i < orders.length; i += MAX_MATRIX_LEGS) out.push(orders.slice(i, i + MAX_MATRIX_LEGS));
  return out;
}

/** Dispatches one workflow run whose matrix is `batch`; null when the dispatch failed (logged). */
async function startBatch(deps: DriverDeps, mission: Mission, batch: readonly AttemptOrder[]): Promise<{ runUrl: string | null } | null> {
  const items = JSON.stringify(batch.map((order) => ({ item: order.item, attempt: order.attempt })));
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

/**
 * Asks GitHub to cancel the runs of the attempts the engine stopped: a run once, and only when no
 * attempt of it is still in flight (a run is a batch; GitHub cancels runs, not single legs). A leg
 * left running ends on its own, and its result is ignored: its attempt is no longer in flight.
 */
export async function cancelRuns(deps: DriverDeps, mission: Mission, attempts: readonly { item: string; attempt: number }[]): Promise<void> {
  const runsOf = new Map<number, string[]>();
  for (const a of attempts) {
    const runner = mission.items.find((i) => i.id === a.item)?.attempts.find((x) => x.n === a.attempt)?.runner ?? null;
    const runId = runIdOf(runner);
    if (runId === null) continue;
    runsOf.set(runId, [...(runsOf.get(runId) ?? []), `${a.item}#${a.attempt}`]);
  }
  const inFlight = new Set(
    mission.items.flatMap((i) => i.attempts.filter((x) => x.status === "dispatched" || x.status === "running").map((x) => runIdOf(x.runner))),
  );
  for (const [runId, names] of runsOf) {
    const which = names.join(", ");
    if (inFlight.has(runId)) {
      deps.log.info(`run ${runId} of ${which} left running: other attempts of its batch are still under way`);
      continue;
    }
    try {
      const cancelled = await deps.github.cancelRun({ runId });
      deps.log.info(`${cancelled ? "cancelled" : "already finished:"} run ${runId} of ${which}`);
    } catch (error) {
      deps.log.warning(`could not cancel run ${runId} of ${which}: ${message(error)}`);
    }
  }
}
