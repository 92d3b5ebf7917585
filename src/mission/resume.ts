/**
 * What a stopped runner left under way, read from the stored mission (pure). Attempts that were
 * dispatched or running have lost their processes: they end as `interrupted` (not counted
 * against `max_attempts`) and start again; checkpoints waiting for the queue are integrated;
 * a mission in review is reviewed; one in planning is planned again. `found`: what resume found
 * the stopped runner had left — processes it stopped (src/local/orphan-agents.ts) and what became
 * of unfinished work, by item (src/local/leftover-work.ts) — for the interrupted attempts' reasons.
 */
import type { Mission } from "./document.ts";
import type { CheckpointOrder, KeptWork, MissionEvent } from "./events.ts";
import { NEVER_STARTED } from "./attempt-events.ts";

export interface Resumption {
  readonly events: readonly MissionEvent[];
  readonly checkpoints: readonly CheckpointOrder[];
  readonly review: boolean;
  readonly plan: boolean;
}

export function resumption(mission: Mission, at: string, found: { stoppedProcesses?: number; work?: ReadonlyMap<string, KeptWork> } = {}): Resumption {
  const events: MissionEvent[] = [];
  const stopped = found.stoppedProcesses ?? 0;
  const reasonFor = (_item: string) => {
    const parts = ["the runner stopped while the agent ran"];
    if (stopped > 0) parts.push(`resume stopped the ${stopped === 1 ? "process" : `${stopped} processes`} it left running`);
    return parts.join("; ");
  };
  const checkpoints: CheckpointOrder[] = [];
  for (const item of mission.items) {
    const last = item.attempts.at(-1);
    if (!last) continue;
    if (last.status === "dispatched" && last.started_at === null && !found.work?.has(item.id)) {
      // It never began (the runner stopped first, Ctrl-C): forgotten, not recorded as an attempt.
      events.push({
        type: "attempt_finished",
        at,
        item: item.id,
        attempt: last.n,
        outcome: { kind: "interrupted", reason: `${NEVER_STARTED} the runner stopped before it began` },
      });
    } else if (last.status === "dispatched" || last.status === "running") {
      events.push({
        type: "attempt_finished",
        at,
        item: item.id,
        attempt: last.n,
        outcome: { kind: "interrupted", reason: reasonFor(item.id), ...withWork(found.work?.get(item.id)) },
      });
    } else if ((last.status === "checkpointed" || last.status === "integrating") && last.checkpoint && last.base) {
      checkpoints.push({ item: item.id, attempt: last.n, commit: last.checkpoint, base: last.base });
    }
  }
  return { events, checkpoints, review: mission.status === "reviewing", plan: mission.status === "planning" };
}

function withWork(work: KeptWork | undefined): { work?: KeptWork } {
  return work === undefined ? {} : { work };
}
