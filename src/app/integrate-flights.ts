/**
 * One integrate run in flight per work run, with the App: what the Action's watch job does
 * without it (src/action/modes/watch.ts). Every run of a mission ends in a publish job of the
 * concurrency group `naruto-<mission>`, which GitHub caps at 100 pending jobs; and on GitHub a run
 * waits for a runner beyond the account's concurrent-job quota. An integrate run per ended leg
 * would queue behind the legs, all but the first finding nothing left to take, and could push the
 * work run's own publish out of the group. So, per work run (its mission is the work run's):
 *
 * - a leg ends and no integrate run of its work run is in flight: one is dispatched;
 * - a leg ends while one is in flight (dispatched, its `workflow_run` `completed` not seen): it is
 *   remembered, nothing is dispatched;
 * - that run completes: if legs ended since its dispatch, exactly one more is dispatched.
 *
 * One in flight loses nothing: an integrate run takes every leg of its work run ended by the time
 * its queue job reads, and one built while another publishes would not be taken anyway. What the
 * memory misses is covered: a `completed` event lost (or sent to another replica) is found at the
 * next leg's end once the flight is {@link RECHECK_MS} old (one read of the run; unreadable, or a
 * server that names no run at dispatch: a new dispatch, so at most one more per interval); a
 * restart forgets the flights (the next leg's end dispatches); and whatever no integrate run took,
 * the work run's own queue and publish jobs integrate once all its legs ended. Its end (its own
 * `completed`) ends its flight: nothing is left for another integrate run of it.
 */
import { OutcomeUnknownError } from "../github/index.ts";

/** How old a flight is before a leg's end asks GitHub whether it completed unseen. */
export const RECHECK_MS = 5 * 60_000;

/** The integrate run in flight for one work run. */
interface Flight {
  readonly repo: string;
  readonly mission: string;
  readonly workRunId: number;
  /** Null while dispatching, or when the server named no run (GitHub Enterprise Server without run details). */
  runId: number | null;
  /** Dispatched, or last asked about, at (ms): {@link RECHECK_MS} from here before asking again. */
  since: number;
  /** Legs ended since the dispatch: its end dispatches one more. */
  waiting: boolean;
}

/** What a work run's leg, or a run, is: its repository (`owner/name`, any case) and ids. */
export interface WorkRunScope {
  readonly repo: string;
  readonly mission: string;
  readonly workRunId: number;
}

/** What the flights do with GitHub, through the installation that sent the event. */
export interface FlightIo {
  /** Dispatches an integrate run of the scope's work run; its run id, or null when the server names none. */
  dispatch(scope: WorkRunScope): Promise<number | null>;
  /** A run's status (`completed`, `queued` …; null: GitHub gave none, read as unreadable). */
  runStatus(runId: number): Promise<string | null>;
  info(message: string): void;
  warn(message: string): void;
}

export type FlightOutcome = "dispatched" | "waits" | "none" | "failed";

export interface IntegrateFlights {
  /** A leg of the scope's work run ended with a result to integrate. */
  legEnded(scope: WorkRunScope, io: FlightIo): Promise<FlightOutcome>;
  /**
   * A run of naruto's workflow completed: `title` is its `run-name` ("naruto integrate m-…"). An
   * integrate run in flight ends its flight (and dispatches the next for legs that ended
   * meanwhile); a work run with a flight ends it.
   */
  runCompleted(run: { repo: string; runId: number; title: string | null }, io: FlightIo): Promise<FlightOutcome>;
  /** Work runs with a flight now (tests). */
  readonly size: number;
}

export function createIntegrateFlights(input: { now: () => number; limit?: number }): IntegrateFlights {
  const limit = input.limit ?? 1_000;
  // By `repo:workRunId` (run ids are unique in a repository), oldest first.
  const flights = new Map<string, Flight>();
  // `repo:integrateRunId` → the key of its flight.
  const byRun = new Map<string, string>();
  const keyOf = (repo: string, runId: number) => `${repo.toLowerCase()}:${runId}`;

  const end = (key: string) => {
    const flight = flights.get(key);
    flights.delete(key);
    if (flight !== undefined && flight.runId !== null) byRun.delete(keyOf(flight.repo, flight.runId));
  };

  const dispatch = async (scope: WorkRunScope, io: FlightIo): Promise<FlightOutcome> => {
    const key = keyOf(scope.repo, scope.workRunId);
    end(key);
    // In the map before the first await: a leg's end handled meanwhile waits for this one.
    const flight: Flight = { repo: scope.repo, mission: scope.mission, workRunId: scope.workRunId, runId: null, since: input.now(), waiting: false };
    flights.set(key, flight);
    for (const oldest of flights.keys()) {
      if (flights.size <= limit) break;
      end(oldest);
    }
    try {
      flight.runId = await io.dispatch(scope);
      if (flights.get(key) !== flight) return "dispatched";
      if (flight.runId !== null) byRun.set(keyOf(scope.repo, flight.runId), key);
      io.info(`integrate run ${flight.runId ?? "(unnamed)"} dispatched for ${scope.mission}: the ended legs of run ${scope.workRunId}`);
      return "dispatched";
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      if (error instanceof OutcomeUnknownError) {
        // It may have started, unnamed: the flight stays until the recheck interval.
        io.warn(`the integrate run for ${scope.mission} (run ${scope.workRunId}) may not have started: ${why}`);
        return "failed";
      }
      // An older workflow file without the integrate phase refuses it: its work runs integrate
      // their legs themselves, once all ended. Nothing in flight.
      if (flights.get(key) === flight) end(key);
      io.warn(`no integrate run for ${scope.mission} (run ${scope.workRunId}): ${why}`);
      return "failed";
    }
  };

  return {
    get size() {
      return flights.size;
    },
    async legEnded(scope, io) {
      const flight = flights.get(keyOf(scope.repo, scope.workRunId));
      if (flight === undefined) return dispatch(scope, io);
      flight.waiting = true;
      const now = input.now();
      if (now - flight.since < RECHECK_MS) {
        io.info(`${scope.mission}: a leg of run ${scope.workRunId} ended; it waits for integrate run ${flight.runId ?? "(dispatching)"} to complete`);
        return "waits";
      }
      // Old enough that its `completed` may have been lost: ask once per interval.
      flight.since = now;
      if (flight.runId === null) return dispatch(scope, io);
      const status = await io.runStatus(flight.runId).catch(() => null);
      if (status !== null && status !== "completed") {
        io.info(`${scope.mission}: integrate run ${flight.runId} is still ${status}; the legs of run ${scope.workRunId} ended since wait for it`);
        return "waits";
      }
      io.info(
        `${scope.mission}: integrate run ${flight.runId} ${status === null ? "could not be read" : "completed unseen"}; another takes the legs of run ${scope.workRunId}`,
      );
      return dispatch(scope, io);
    },
    async runCompleted(run, io) {
      // The work run itself: its queue and publish jobs took whatever was left.
      const asWorkRun = keyOf(run.repo, run.runId);
      if (flights.has(asWorkRun)) {
        end(asWorkRun);
        return "none";
      }
      let key = byRun.get(keyOf(run.repo, run.runId));
      if (key === undefined) key = unnamedFlightOf(run);
      const flight = key === undefined ? undefined : flights.get(key);
      if (key === undefined || flight === undefined) return "none";
      end(key);
      if (!flight.waiting) return "none";
      return dispatch({ repo: flight.repo, mission: flight.mission, workRunId: flight.workRunId }, io);
    },
  };

  /** A server that names no run at dispatch: an integrate run of the mission ends its oldest unnamed flight. */
  function unnamedFlightOf(run: { repo: string; title: string | null }): string | undefined {
    const [, phase, mission] = (run.title ?? "").split(/\s+/);
    if (phase !== "integrate" || mission === undefined) return undefined;
    for (const [key, flight] of flights)
      if (flight.runId === null && flight.mission === mission && flight.repo.toLowerCase() === run.repo.toLowerCase()) return key;
    return undefined;
  }
}
