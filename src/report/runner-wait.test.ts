import { describe, expect, it } from "vitest";
import { at, commitOf, dispatched, finished, item, missionAfter, planned, requested, started } from "../../test/support/mission-builders.ts";
import type { MissionEvent } from "../mission/index.ts";
import { runnerWait, runnerWaitWarning } from "./runner-wait.ts";
import { trackingComment } from "./tracking-comment.ts";

/** Six items, max_parallel 6, dispatched at minute 1 as one run; `starts` says when each leg's job started. */
function mission(starts: readonly (number | null)[]): ReturnType<typeof missionAfter> {
  const ids = starts.map((_, i) => `i${i}`);
  const events: MissionEvent[] = [requested({ max_parallel: 6 }), planned(ids.map((id) => item(id)))];
  for (const id of ids) events.push(dispatched(id, 1, 1));
  starts.forEach((minute, i) => {
    if (minute !== null) events.push(started(`i${i}`, 1, minute));
  });
  return missionAfter(events);
}

describe("what parallelism a mission actually got", () => {
  it("counts the attempts running at once and the waits for a runner", () => {
    // A quota of 2: two legs start at once, the third only at minute 40 (the mission's last event), the rest never.
    expect(runnerWait(mission([2, 2, 40, null, null, null]))).toEqual({ peak: 2, waited: 4, longestMs: 39 * 60_000 });
  });

  it("counts a job as running until it ended, not until its result reached the mission", () => {
    // A quota of 2: i0 and i1 run from minute 2 to 5, i2 and i3 from 5 to 8; every result is
    // recorded at minute 20, by a job that waited behind the queued legs.
    const events: MissionEvent[] = [requested({ max_parallel: 4 }), planned(["i0", "i1", "i2", "i3"].map((id) => item(id)))];
    ["i0", "i1", "i2", "i3"].forEach((id, k) => {
      const [from, to] = k < 2 ? [2, 5] : [5, 8];
      events.push(dispatched(id, 1, 1), started(id, 1, from), { type: "agent_exited", at: at(to), item: id, attempt: 1 });
    });
    for (const id of ["i0", "i1", "i2", "i3"])
      events.push(finished(id, 1, { kind: "checkpointed", commit: commitOf(id, 1), base: "b".repeat(40), changed: [`src/${id}/x.ts`] }, 20));
    expect(runnerWait(missionAfter(events))).toEqual({ peak: 2, waited: 2, longestMs: 4 * 60_000 });
  });

  it("warns in the tracking comment when attempts waited while fewer than max_parallel ran", () => {
    const waiting = mission([2, 2, 30, null, null, null]);
    const warning = runnerWaitWarning(waiting);
    expect(warning).toContain("`max_parallel` is 6, but at most 2 attempts ran at once; 4 attempts waited for a runner (the longest 29m 00s)");
    expect(warning).toContain("Free 20, Pro 40, Team 60, Enterprise 500");
    expect(trackingComment(waiting)).toContain("⚠️ **Runners:**");
  });

  it("says nothing when every job started within a minute", () => {
    expect(runnerWaitWarning(mission([1, 1, 2, 2, 1, 1]))).toBeNull();
    expect(trackingComment(mission([1, 1, 2, 2, 1, 1]))).not.toContain("Runners:");
  });

  it("shows an attempt whose job waits for a runner as waiting, and counts its time only from its start", () => {
    const comment = trackingComment(mission([2, 30, null, null, null, null]));
    expect(comment).toContain("running: waiting for a runner");
    expect(comment.split("\n").find((l) => l.includes("`i2`"))).toContain("running: waiting for a runner · `naruto/m-test1--i2` · attempt 1/2 · —");
    expect(comment.split("\n").find((l) => l.includes("`i0`"))).toContain("· 28m 00s");
  });
});
