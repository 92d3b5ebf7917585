import { describe, expect, it } from "vitest";
import { dispatched, item, missionAfter, planned, requested, started } from "../../test/support/mission-builders.ts";
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
