/**
 * The refresh lease (issue 37): one refresh run of a mission at a time. A push asks without
 * handover; the same request again (a redelivered push, a second App replica) is a duplicate,
 * another while one is under way is refused, and the lease ends when a refresh lands, when the
 * run gives it back, or after REFRESH_LEASE_MS (a run that died without saying so).
 */
import { describe, expect, it } from "vitest";
import { item, missionAfter, planned, requested, T0 } from "../../test/support/mission-builders.ts";
import { IllegalEventError } from "./errors.ts";
import type { MissionEvent } from "./events.ts";
import { REFRESH_LEASE_MS, refreshUnderWay } from "./refresh-event.ts";
import { step } from "./step.ts";

const later = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const ask = (onto: string | null, ms: number, handover = false): MissionEvent => ({ type: "refresh_requested", at: later(ms), onto, handover });
const X = "1".repeat(40);
const Y = "2".repeat(40);

describe("the refresh lease", () => {
  const running = missionAfter([requested(), planned([item("a")])]);

  it("lets one request through: the same one again is a duplicate, another is refused while it is under way", () => {
    const taken = step(running, ask(X, 1000));
    expect(taken.duplicate).toBe(false);
    expect(taken.mission.queue.refresh_requested).toEqual({ onto: X, at: later(1000) });
    expect(refreshUnderWay(taken.mission, later(2000))).toEqual({ onto: X, at: later(1000) });
    expect(step(taken.mission, ask(X, 2000)).duplicate).toBe(true);
    expect(() => step(taken.mission, ask(Y, 2000))).toThrow(IllegalEventError);
    // A handover (the ending run asking for the next, a person's command) takes it over.
    expect(step(taken.mission, ask(Y, 2000, true)).mission.queue.refresh_requested).toEqual({ onto: Y, at: later(2000) });
  });

  it("ends when the run gives it back, or when it expires", () => {
    const taken = step(running, ask(X, 0)).mission;
    const released = step(taken, ask(null, 1000));
    expect(released.mission.queue.refresh_requested).toBeNull();
    expect(step(released.mission, ask(null, 2000)).duplicate).toBe(true);
    expect(step(released.mission, ask(Y, 2000)).mission.queue.refresh_requested?.onto).toBe(Y);
    expect(refreshUnderWay(taken, later(REFRESH_LEASE_MS))).toBeNull();
    expect(step(taken, ask(Y, REFRESH_LEASE_MS)).mission.queue.refresh_requested?.onto).toBe(Y);
  });

  it("is refused onto the base the mission stands on, and for a mission with no queue", () => {
    expect(() => step(running, ask(running.base.commit, 0))).toThrow(/already/);
    const failed = { ...running, status: "failed" as const };
    expect(() => step(failed, ask(X, 0))).toThrow(IllegalEventError);
  });
});
