/**
 * The local driver's merge queue, pipelined (issue 37): while a batch verifies, the next batch is
 * built on that batch's candidate and verified at the same time. When the first lands whole, the
 * second moves the queue from there; when it does not (a culprit came out, a checkpoint did not
 * merge), the second is dropped and its checkpoints go to the queue again. At most
 * {@link IN_FLIGHT} batches are under way; without a verify command there is nothing to overlap,
 * and batches go one at a time.
 *
 * A batch that does not speculate starts from a mission that knows the last batch's event (the
 * loop applied it), so it finds nothing to look for after the head it builds on.
 */
import { integrateBatch, type Candidate, type Integrated } from "../engine/index.ts";
import type { CheckpointOrder, Mission, MissionEvent } from "../mission/index.ts";
import { createTreeCache, queueRefName, QueueTamperedError, SpeculationDroppedError } from "../queue/index.ts";
import type { DriverContext } from "./driver.ts";

/**
 * Batches under way at once: one verifying, the others each speculating on the one before. With
 * arrivals spread over a verify's time, two left most checkpoints waiting for a slot (bench
 * latency, 64 items, 4 agents, a 10 s verify: mean 2.08× one verify at two, 1.42× at four, for
 * 30 and 55 verify runs); a red batch drops at most three speculating on it.
 */
export const IN_FLIGHT = 4;

interface Flight {
  candidate: Candidate | null;
  readonly settle: (event: Integrated | null) => void;
  readonly landed: Promise<Integrated | null>;
}

export interface QueuePipeline {
  /** Starts what can start now: a batch on the queue head, or one on the candidate still verifying. */
  kick(mission: Mission | null): void;
  /** The loop applied an `integrated` event: a batch that does not speculate may start from it. */
  applied(events: readonly (MissionEvent | null)[]): void;
}

export function createQueuePipeline(input: {
  ctx: DriverContext;
  id: string;
  pending: CheckpointOrder[];
  /** Runs a task whose message goes to the loop; `after` runs once the message is in the inbox. */
  spawn: (work: () => Promise<MissionEvent | null>, after?: (message: MissionEvent | null) => void) => void;
  checkTampering: (only?: "always" | "ended attempts") => Promise<unknown[]>;
}): QueuePipeline {
  const { ctx, id, pending } = input;
  const flights: Flight[] = [];
  // Events of batches that landed but that the loop has not applied yet.
  let unapplied = 0;
  let queueMovedRuns = 0;
  // Each batch starts where the last one ended: its tree is known without reading it again.
  const trees = createTreeCache();
  const depth = ctx.verify === null ? 1 : IN_FLIGHT;

  const start = (mission: Mission, onto: Flight | null) => {
    const batch = pending.splice(0, mission.settings.batch);
    let settle: (event: Integrated | null) => void = () => undefined;
    const landed = new Promise<Integrated | null>((resolve) => (settle = resolve));
    const flight: Flight = { candidate: null, settle, landed };
    flights.push(flight);
    const speculative = onto?.candidate ? { onto: onto.candidate, predecessor: onto.landed } : undefined;
    input.spawn(
      async () => {
        try {
          await input.checkTampering("ended attempts");
          // The queue never builds on a head naruto did not write (docs/architecture.md).
          const event = await integrateBatch({ ...ctx, expectedHead: ctx.tamper.expected(queueRefName(id)), trees }, mission, batch, {
            onCandidate: (candidate) => {
              flight.candidate = candidate;
              kickLater();
            },
            ...(speculative ? { speculative } : {}),
          });
          queueMovedRuns = 0;
          unapplied += 1;
          return event;
        } catch (e) {
          pending.unshift(...batch);
          // Stopped halfway (its verify was): the batch is integrated when the mission resumes.
          if (e instanceof SpeculationDroppedError || ctx.signal?.aborted) return null;
          if (!(e instanceof QueueTamperedError) || ++queueMovedRuns > 5) throw e;
          // Moved during the batch: the check reports it and puts naruto's head back; try again.
          await input.checkTampering();
          return null;
        }
      },
      (message) => {
        flights.splice(flights.indexOf(flight), 1);
        settle(message?.type === "integrated" ? message : null);
      },
    );
  };

  let latest: Mission | null = null;
  // A candidate arrived: the loop may be idle, so the kick is made here.
  const kickLater = () => queueMicrotask(() => kick(latest));

  const kick = (mission: Mission | null) => {
    latest = mission ?? latest;
    const m = latest;
    if (m === null || pending.length === 0 || ctx.shutdown?.aborted) return;
    if (flights.length === 0 && unapplied === 0) return start(m, null);
    const last = flights.at(-1);
    if (last?.candidate && flights.length < depth) start(m, last);
  };

  return {
    kick,
    applied: (events) => {
      unapplied = Math.max(0, unapplied - events.filter((e) => e?.type === "integrated").length);
    },
  };
}
