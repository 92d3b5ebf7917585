/**
 * The integrate runs of a mission as GitHub sent their webhooks: per work run, how many were
 * dispatched, and which were dispatched while another of the same work run was still in flight
 * (requested before the other's `workflow_run` `completed`). The order is the order the
 * deliveries were made in: a run the App dispatches after seeing another's `completed` is
 * requested after it, so an overlap here is one the App made. One could be missed only if the
 * other completed in the moment between a dispatch and the world starting its run (the world
 * starts a dispatched run within 200 ms; under a runner quota the other waits far longer).
 */
import type { SentRunWebhook } from "../../support/actions-sim/webhooks.ts";
import type { DispatchRecord } from "../../support/fake-github/index.ts";

export interface IntegrateFlightsSeen {
  /** Integrate runs dispatched for the mission, per work run id. */
  readonly perWorkRun: ReadonlyMap<string, number>;
  /** "run Y requested while run X (same work run) was in flight". */
  readonly overlaps: readonly string[];
  /** The most integrate runs of one work run in flight at once. */
  readonly peakInFlight: number;
}

export function integrateFlightsSeen(input: { mission: string; dispatches: readonly DispatchRecord[]; sent: readonly SentRunWebhook[] }): IntegrateFlightsSeen {
  const workRunOf = new Map<number, string>();
  const perWorkRun = new Map<string, number>();
  for (const d of input.dispatches) {
    if (d.inputs["mission"] !== input.mission || d.inputs["phase"] !== "integrate") continue;
    const work = d.inputs["run"] ?? "?";
    workRunOf.set(d.runId, work);
    perWorkRun.set(work, (perWorkRun.get(work) ?? 0) + 1);
  }
  const inFlight = new Map<string, Set<number>>();
  const overlaps: string[] = [];
  let peakInFlight = 0;
  for (const hook of input.sent) {
    if (hook.event !== "workflow_run") continue;
    const work = workRunOf.get(hook.runId);
    if (work === undefined) continue;
    const flying = inFlight.get(work) ?? new Set<number>();
    inFlight.set(work, flying);
    if (hook.action === "requested") {
      if (flying.size > 0) overlaps.push(`run ${hook.runId} requested while run(s) ${[...flying].join(", ")} of work run ${work} were in flight`);
      flying.add(hook.runId);
      peakInFlight = Math.max(peakInFlight, flying.size);
    }
    if (hook.action === "completed") flying.delete(hook.runId);
  }
  return { perWorkRun, overlaps, peakInFlight };
}
