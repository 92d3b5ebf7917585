/**
 * The App's integrate runs, one in flight per work run (src/app/integrate-flights.ts): what it
 * dispatches as legs end and runs complete, including when a `completed` event is lost, the App
 * restarts, the server names no run, or the dispatch fails.
 */
import { describe, expect, it } from "vitest";
import { createIntegrateFlights, RECHECK_MS, type FlightIo } from "../../src/app/integrate-flights.ts";
import { OutcomeUnknownError } from "../../src/github/index.ts";

const SCOPE = { repo: "acme/demo", mission: "m-0b5e7ca7", workRunId: 100 };

/** GitHub as the flights see it: dispatches numbered from 1000, each run's status as the test sets it. */
function github(options: { named?: boolean; dispatch?: () => never } = {}) {
  const dispatched: { mission: string; workRunId: number; runId: number }[] = [];
  const status = new Map<number, string>();
  const reads: number[] = [];
  const io: FlightIo = {
    dispatch: async (scope) => {
      await Promise.resolve();
      options.dispatch?.();
      const runId = 1000 + dispatched.length;
      dispatched.push({ mission: scope.mission, workRunId: scope.workRunId, runId });
      status.set(runId, "queued");
      return options.named === false ? null : runId;
    },
    runStatus: async (runId) => {
      reads.push(runId);
      const found = status.get(runId);
      if (found === undefined) throw new Error(`no run ${runId}`);
      return found;
    },
    info: () => undefined,
    warn: () => undefined,
  };
  return { io, dispatched, status, reads };
}

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe("integrate runs in flight", () => {
  it("dispatches one for a wave of ended legs, even handled at once, and one more when it completes", async () => {
    const time = clock();
    const flights = createIntegrateFlights({ now: time.now });
    const gh = github();
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => flights.legEnded(SCOPE, gh.io)));
    expect(outcomes.filter((o) => o === "dispatched")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "waits")).toHaveLength(11);
    expect(gh.dispatched).toEqual([{ mission: SCOPE.mission, workRunId: 100, runId: 1000 }]);
    // Another work run of the mission has a flight of its own.
    expect(await flights.legEnded({ ...SCOPE, workRunId: 101 }, gh.io)).toBe("dispatched");
    // Another run completing (not ours), then ours: exactly one more, for the same work run.
    expect(await flights.runCompleted({ repo: "acme/demo", runId: 999, title: `naruto integrate ${SCOPE.mission}` }, gh.io)).toBe("none");
    expect(await flights.runCompleted({ repo: "ACME/demo", runId: 1000, title: null }, gh.io)).toBe("dispatched");
    expect(gh.dispatched.map((d) => [d.workRunId, d.runId])).toEqual([
      [100, 1000],
      [101, 1001],
      [100, 1002],
    ]);
    // Redelivered: nothing. The next completes with no leg ended since: nothing more, no flight.
    expect(await flights.runCompleted({ repo: "acme/demo", runId: 1000, title: null }, gh.io)).toBe("none");
    expect(await flights.runCompleted({ repo: "acme/demo", runId: 1002, title: null }, gh.io)).toBe("none");
    expect(await flights.legEnded(SCOPE, gh.io)).toBe("dispatched");
    expect(gh.reads).toEqual([]);
  });

  it("ends a work run's flight with the work run: its own queue and publish took what was left", async () => {
    const flights = createIntegrateFlights({ now: clock().now });
    const gh = github();
    await flights.legEnded(SCOPE, gh.io);
    await flights.legEnded(SCOPE, gh.io);
    expect(await flights.runCompleted({ repo: "acme/demo", runId: SCOPE.workRunId, title: `naruto work ${SCOPE.mission}` }, gh.io)).toBe("none");
    expect(await flights.runCompleted({ repo: "acme/demo", runId: 1000, title: `naruto integrate ${SCOPE.mission}` }, gh.io)).toBe("none");
    expect(gh.dispatched).toHaveLength(1);
    expect(flights.size).toBe(0);
  });

  it("finds a lost `completed` at a leg's end once the flight is old: one read per interval, a dispatch only if the run completed or cannot be read", async () => {
    const time = clock();
    const flights = createIntegrateFlights({ now: time.now });
    const gh = github();
    await flights.legEnded(SCOPE, gh.io);
    time.advance(RECHECK_MS - 1);
    expect(await flights.legEnded(SCOPE, gh.io)).toBe("waits");
    expect(gh.reads).toEqual([]);
    // Old: still queued on GitHub (waiting for a runner), so the legs keep waiting, asked once.
    time.advance(1);
    expect(await flights.legEnded(SCOPE, gh.io)).toBe("waits");
    expect(await flights.legEnded(SCOPE, gh.io)).toBe("waits");
    expect(gh.reads).toEqual([1000]);
    // It completed and the event was lost: the next look finds it and dispatches the next.
    gh.status.set(1000, "completed");
    time.advance(RECHECK_MS);
    expect(await flights.legEnded(SCOPE, gh.io)).toBe("dispatched");
    expect(gh.dispatched.map((d) => d.runId)).toEqual([1000, 1001]);
    // A run GitHub cannot show (deleted, a failed read): the next one goes, once per interval.
    gh.status.delete(1001);
    time.advance(RECHECK_MS);
    expect(await flights.legEnded(SCOPE, gh.io)).toBe("dispatched");
    expect(await flights.legEnded(SCOPE, gh.io)).toBe("waits");
    expect(gh.dispatched).toHaveLength(3);
  });

  it("forgets its flights on a restart: the next leg's end dispatches", async () => {
    const gh = github();
    await createIntegrateFlights({ now: clock().now }).legEnded(SCOPE, gh.io);
    expect(await createIntegrateFlights({ now: clock().now }).legEnded(SCOPE, gh.io)).toBe("dispatched");
    expect(gh.dispatched).toHaveLength(2);
  });

  it("on a server that names no run, ends the oldest unnamed flight of the mission by the completed run's title, and rechecks by age", async () => {
    const time = clock();
    const flights = createIntegrateFlights({ now: time.now });
    const gh = github({ named: false });
    await flights.legEnded(SCOPE, gh.io);
    await flights.legEnded(SCOPE, gh.io);
    expect(await flights.runCompleted({ repo: "acme/demo", runId: 1000, title: "naruto integrate m-othermission" }, gh.io)).toBe("none");
    expect(await flights.runCompleted({ repo: "acme/demo", runId: 1000, title: `naruto integrate ${SCOPE.mission}` }, gh.io)).toBe("dispatched");
    // Its completion lost: no run to read, so the age alone lets the next one go.
    time.advance(RECHECK_MS);
    expect(await flights.legEnded(SCOPE, gh.io)).toBe("dispatched");
    expect(gh.reads).toEqual([]);
    expect(gh.dispatched).toHaveLength(3);
  });

  it("holds nothing after a refused dispatch, and holds an unknown one until the recheck", async () => {
    const time = clock();
    const refused = github({
      dispatch: () => {
        throw new Error("Unexpected inputs provided: phase");
      },
    });
    const flights = createIntegrateFlights({ now: time.now });
    expect(await flights.legEnded(SCOPE, refused.io)).toBe("failed");
    expect(flights.size).toBe(0);
    const unknown = github({
      dispatch: () => {
        throw new OutcomeUnknownError({ operation: "dispatch naruto.yml on main", status: null, message: "no usable answer" });
      },
    });
    expect(await flights.legEnded(SCOPE, unknown.io)).toBe("failed");
    expect(await flights.legEnded(SCOPE, unknown.io)).toBe("waits");
    time.advance(RECHECK_MS);
    const gh = github();
    expect(await flights.legEnded(SCOPE, gh.io)).toBe("dispatched");
  });

  it("keeps at most `limit` flights, dropping the oldest (which then dispatches again, as after a restart)", async () => {
    const flights = createIntegrateFlights({ now: clock().now, limit: 2 });
    const gh = github();
    for (const workRunId of [1, 2, 3]) await flights.legEnded({ ...SCOPE, workRunId }, gh.io);
    expect(flights.size).toBe(2);
    expect(await flights.legEnded({ ...SCOPE, workRunId: 3 }, gh.io)).toBe("waits");
    expect(await flights.legEnded({ ...SCOPE, workRunId: 1 }, gh.io)).toBe("dispatched");
  });
});
