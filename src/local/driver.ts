/**
 * The local driver (docs/architecture.md): interprets the mission engine's commands on this machine —
 * work trees and agent processes for attempts, the merge queue in-process, the arbiter — and
 * feeds what happened back to the engine as events. Every event goes through the store's
 * compare-and-swap, so a killed run resumes from the stored mission (`naruto resume`), and
 * `naruto cancel` from another process is seen at the next tick.
 */
import type { EngineContext } from "../engine/index.ts";
import type { Mission } from "../mission/index.ts";
import { IllegalEventError } from "../mission/index.ts";
import type { CheckpointOrder, MissionCommand, MissionEvent } from "../mission/index.ts";
import { applyEvent, applyEvents, type BatchResult, type MissionStore } from "../mission/index.ts";
import { isMissionTerminal } from "../mission/index.ts";
import { cachedStore } from "./cached-store.ts";
import { createInbox } from "./inbox.ts";
import { createStartsFirst } from "./starts-first.ts";
import { createQueuePipeline } from "./queue-pipeline.ts";
import { recordMovedBase } from "./moved-base.ts";
import type { Progress } from "./progress.ts";
import { reviewAgentFor, reviewLocally } from "../engine/index.ts";
import { AttemptStepError, runAttempt, type WorkerContext } from "../engine/index.ts";
import type { TamperWatch } from "./tamper-watch.ts";
import { missionWorkFolder, removeEmptyMissionFolder, workRepo } from "../sandbox/index.ts";

export interface DriverContext extends EngineContext {
  readonly store: MissionStore;
  /** The tamper record of the mission; its `git` is the context's `git`. */
  readonly tamper: TamperWatch;
  /** The queue's verify command; null: none. */
  readonly verify: string | null;
  readonly progress: Progress;
  /**
   * Makes the plan: the `planned` or `planning_failed` event; null when `signal` stopped the
   * planner (the mission stays in planning, for `resume`).
   */
  readonly plan: (mission: Mission, signal: AbortSignal) => Promise<MissionEvent | null>;
  /** Writes the report of the mission as it stands. */
  readonly report: (mission: Mission) => Promise<void>;
  /** Stops the run (Ctrl-C): agents are stopped, the mission stays resumable. */
  readonly shutdown?: AbortSignal;
  /** Told once when the drive starts stopping what runs because the mission was cancelled (from here or elsewhere). */
  readonly onCancelled?: () => void;
  /** How often the clock ticks (item and mission timeouts, cancels from elsewhere). */
  readonly tickMs?: number;
}

/** Null wakes the loop when a task ended without an event. */
type Message = MissionEvent | null;

/**
 * Drives a mission until it finishes (or the run is shut down) and returns it as stored.
 * `first` are the events that start the drive (`requested`, or what `resume` found).
 */
export async function driveMission(ctx: DriverContext, id: string, first: readonly MissionEvent[], resumeWork: ResumeWork = EMPTY_RESUME): Promise<Mission> {
  const store = cachedStore(ctx.store);
  // Deleting a finished attempt's directory overlaps what follows; the drive ends after it.
  const worker = workerContext(ctx, (work) => spawn(() => work.then(() => null)));
  const inbox = createInbox<Message>();
  const attempts = new Map<string, AbortController>();
  const tasks = new Set<Promise<void>>();
  const pending: CheckpointOrder[] = [...resumeWork.checkpoints];
  // A finished attempt's checks wait for the starts its exit made room for (see starts-first.ts).
  const startsFirst = createStartsFirst();
  let finished = false;
  let mission: Mission | null = null;

  const spawn = (work: () => Promise<Message>, after?: (m: Message) => void) => {
    // A task leaves the set before its message wakes the loop: the loop that takes its last
    // message sees it gone and ends, instead of waiting for the next tick.
    const task: Promise<void> = work()
      .catch((e: unknown) => {
        ctx.progress.error(e);
        return null;
      })
      .then((m) => {
        tasks.delete(task);
        inbox.push(m);
        after?.(m);
      });
    tasks.add(task);
  };

  // Stops the mission's own processes (planner, review agent, queue verify) as stopAll stops attempts.
  const stopping = new AbortController();
  const engine = { ...ctx, signal: stopping.signal };
  const stopAll = () => {
    for (const c of attempts.values()) c.abort();
    stopping.abort();
  };
  ctx.shutdown?.addEventListener("abort", stopAll, { once: true });

  /** Compares the tamper record; what it found goes to the engine first (see tamper-watch.ts). */
  const checkTampering = async (only: "always" | "ended attempts" = "always") => {
    const findings = await (only === "always" ? ctx.tamper.check() : ctx.tamper.checkEnded());
    if (findings.length > 0) inbox.push({ type: "tampered", at: ctx.now().toISOString(), findings });
    return findings;
  };

  // The merge queue, pipelined: a batch verifies while the next is built on its candidate.
  const queue = createQueuePipeline({ ctx: engine, id, pending, spawn, checkTampering });

  const handle = (commands: readonly MissionCommand[], m: Mission) => {
    for (const c of commands) {
      switch (c.type) {
        case "plan":
          spawn(() => ctx.plan(m, stopping.signal));
          break;
        case "start_attempts":
          if (ctx.shutdown?.aborted) break; // stays dispatched; `resume` takes it up
          for (const order of c.attempts) {
            const controller = new AbortController();
            const key = `${order.item}#${order.attempt}`;
            attempts.set(key, controller);
            ctx.tamper.attemptStarted(key);
            const startEnded = startsFirst.begin();
            spawn(async () => {
              let event: MissionEvent;
              try {
                event = await runAttempt(worker, m, order, {
                  signal: controller.signal,
                  started: async (base, runner) => {
                    startEnded();
                    inbox.push({ type: "attempt_started", at: ctx.now().toISOString(), item: order.item, attempt: order.attempt, base, runner });
                  },
                  // Its slot goes to the next item, which starts before its checkpoint is made and checked.
                  exited: async () => {
                    const room = startsFirst.roomMade(key);
                    inbox.push({ type: "agent_exited", at: ctx.now().toISOString(), item: order.item, attempt: order.attempt });
                    await room;
                  },
                });
              } catch (e) {
                // naruto's own step failed (a work tree, git): the attempt ends with the reason
                // instead of waiting for its timeout.
                const reason = `naruto could not run the attempt: ${e instanceof Error ? e.message : String(e)}`;
                const work = e instanceof AttemptStepError ? e.work : null;
                event = {
                  type: "attempt_finished",
                  at: ctx.now().toISOString(),
                  item: order.item,
                  attempt: order.attempt,
                  outcome: { kind: "failed", reason, work },
                };
              } finally {
                startEnded();
                attempts.delete(key);
              }
              // What changed while it ran is told before how it ended: a finding turns its end into
              // `tampered`. It has ended (its processes are gone) but is still among those that ran.
              ctx.tamper.attemptEnded(key);
              await checkTampering();
              return event;
            });
          }
          break;
        case "cancel_attempts":
          for (const a of c.attempts) attempts.get(`${a.item}#${a.attempt}`)?.abort();
          break;
        case "integrate":
          pending.push(...c.checkpoints);
          break;
        case "review":
          spawn(async () => {
            // The last look at the tamper record, the user's refs included: what it finds is on
            // the mission the arbiter reads.
            const findings = await ctx.tamper.check({ everything: true });
            let reviewed = m;
            if (findings.length > 0) {
              const event: MissionEvent = { type: "tampered", at: ctx.now().toISOString(), findings };
              reviewed = (await applyEvent(store, id, event)).mission;
              ctx.progress.event(event, reviewed);
            }
            const verdict = await reviewLocally({ ...ctx, verifyConfigured: ctx.verify !== null }, reviewed, { agent: reviewAgentFor(engine, reviewed) });
            // Stopped while the review agent ran: its verdict is not one; `resume` reviews again.
            return stopping.signal.aborted ? null : verdict;
          });
          break;
        case "report":
          spawn(async () => {
            await ctx.report(m);
            return null;
          });
          break;
        case "finish":
          finished = true;
          if (m.status === "cancelled") ctx.onCancelled?.();
          stopAll();
          break;
      }
    }
  };

  for (const e of first) inbox.push(e);
  if (resumeWork.review) inbox.push(null);
  const ticker = setInterval(() => inbox.push({ type: "tick", at: ctx.now().toISOString() }), ctx.tickMs ?? 2000);
  try {
    let reviewPending = resumeWork.review;
    while (!((finished || ctx.shutdown?.aborted) && tasks.size === 0 && inbox.size === 0)) {
      // What arrived while the last save ran is applied in order and saved once (a group commit):
      // no event waits longer than it did, and a busy mission writes fewer versions.
      const arrived = [await inbox.next(), ...inbox.drain()];
      queue.applied(arrived);
      for (const events of saveGroups(arrived.filter((m): m is MissionEvent => m !== null && !(finished && m.type === "tick")))) {
        const exits = events.flatMap((e) => (e.type === "agent_exited" ? [`${e.item}#${e.attempt}`] : []));
        try {
          // A tick reads the stored mission afresh: a cancel from elsewhere shows up there.
          if (events.some((e) => e.type === "tick")) store.refresh(id);
          const result = await applyInOneSave(store, id, events);
          mission = result.mission;
          for (const [i, outcome] of result.outcomes.entries()) {
            const event = events[i];
            if (outcome.kind === "illegal") ctx.progress.error(outcome.error);
            else if (outcome.kind === "applied" && event) ctx.progress.event(event, mission);
          }
          const applied = mission;
          startsFirst.dispatching(exits, () => handle(result.commands, applied));
          if (isMissionTerminal(mission.status) && !finished && result.commands.length === 0) {
            // Finished elsewhere (`naruto cancel` in another process): stop here too, and write
            // the report that process did not (the summary points at it).
            finished = true;
            if (mission.status === "cancelled") ctx.onCancelled?.();
            stopAll();
            handle([{ type: "report" }], mission);
          }
        } catch (e) {
          if (!(e instanceof IllegalEventError)) throw e;
          ctx.progress.error(e);
        } finally {
          startsFirst.settle(exits);
        }
      }
      if (reviewPending && mission) {
        reviewPending = false;
        handle([{ type: "review" }], mission);
      }
      queue.kick(mission);
    }
  } finally {
    startsFirst.release();
    clearInterval(ticker);
    ctx.shutdown?.removeEventListener("abort", stopAll);
    await removeEmptyMissionFolder(missionWorkFolder(ctx.workRoot, await workRepo(ctx.git, ctx.repoDir), id)).catch(() => undefined);
  }
  store.refresh(id);
  const stored = await store.load(id);
  if (!stored) throw new Error(`mission ${id} disappeared from the store`);
  const ended = await recordMovedBase(ctx, store, stored.mission);
  // Stopped before the end (Ctrl-C), or amended after its report (a cancelled attempt's kept
  // work): the report shows the mission as it stands.
  await ctx.report(ended);
  return ended;
}

/**
 * The events that arrived together, cut into what can be saved at once: `requested` makes the
 * mission, so it is saved alone (applyEvent), and so is an event that arrived alone.
 */
function saveGroups(events: readonly MissionEvent[]): MissionEvent[][] {
  const groups: MissionEvent[][] = [];
  for (const event of events) {
    const last = groups.at(-1);
    if (last === undefined || event.type === "requested" || last[0]?.type === "requested") groups.push([event]);
    else last.push(event);
  }
  return groups;
}

/** One event as applyEvent applies it (an illegal one throws), several as applyEvents does: in order, one save. */
async function applyInOneSave(store: MissionStore, id: string, events: readonly MissionEvent[]): Promise<BatchResult> {
  const [only] = events;
  if (only === undefined || events.length > 1) return applyEvents(store, id, events);
  const result = await applyEvent(store, id, only);
  return { mission: result.mission, commands: result.commands, outcomes: [{ kind: result.duplicate ? "duplicate" : "applied" }] };
}

/** Work a resumed mission had under way when its runner stopped. */
export interface ResumeWork {
  readonly checkpoints: readonly CheckpointOrder[];
  readonly review: boolean;
}
const EMPTY_RESUME: ResumeWork = { checkpoints: [], review: false };

function workerContext(ctx: DriverContext, inBackground: (work: Promise<void>) => void): WorkerContext {
  // The queue only moves by naruto (any other move is tampering, put back): its head is known.
  return { ...ctx, onOutput: (item: string, chunk: Buffer) => ctx.progress.output(item, chunk), expectedRef: (ref) => ctx.tamper.expected(ref), inBackground };
}
