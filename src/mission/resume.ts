/**
 * What a stopped runner left under way, read from the stored mission (pure). Attempts that were
 * dispatched or running have lost their processes: they end as `interrupted` (not counted
 * against `max_attempts`) and start again; checkpoints waiting for the queue are integrated;
 * a mission in review is reviewed; one in planning is planned again. `stoppedProcesses`: how many
 * processes the stopped runner had left running, which resume stopped (src/local/orphan-agents.ts).
 */
import type { Mission } from "./document.ts";
import type { CheckpointOrder, MissionEvent } from "./events.ts";

export interface Resumption {
  readonly events: readonly MissionEvent[];
  readonly checkpoints: readonly CheckpointOrder[];
  readonly review: boolean;
  readonly plan: boolean;
}

export function resumption(mission: Mission, at: string, stoppedProcesses = 0): Resumption {
  const events: MissionEvent[] = [];
  const reason =
    stoppedProcesses === 0 ? "the runner stopped while the agent ran" : `the runner stopped while the agent ran; resume stopped the ${stoppedProcesses === 1 ? "process" : `${stoppedProcesses} processes`} it left running`;
  const checkpoints: CheckpointOrder[] = [];
  for (const item of mission.items) {
    const last = item.attempts.at(-1);
    if (!last) continue;
    if (last.status === "dispatched" || last.status === "running") {
      events.push({ type: "attempt_finished", at, item: item.id, attempt: last.n, outcome: { kind: "interrupted", reason } });
    } else if ((last.status === "checkpointed" || last.status === "integrating") && last.checkpoint && last.base) {
      checkpoints.push({ item: item.id, attempt: last.n, commit: last.checkpoint, base: last.base });
    }
  }
  return { events, checkpoints, review: mission.status === "reviewing", plan: mission.status === "planning" };
}
