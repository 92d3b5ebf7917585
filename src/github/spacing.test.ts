/** The write limiter's shape: a burst, then one per interval; no spacing at an interval of 0. */
import Bottleneck from "bottleneck";
import { describe, expect, it } from "vitest";
import { spacing } from "./octokit-client.ts";

describe("spacing", () => {
  it("lets a burst through back to back and holds the rest for the interval", async () => {
    const limiter = new Bottleneck(spacing(60_000, 3));
    let done = 0;
    const jobs = Array.from({ length: 5 }, () => limiter.schedule(async () => void done++));
    jobs.forEach((j) => j.catch(() => undefined)); // the held ones are dropped at the end
    try {
      await Promise.all(jobs.slice(0, 3));
      await new Promise((r) => setTimeout(r, 50));
      // The other two wait for the reservoir, refilled one per minute.
      expect(done).toBe(3);
      const counts = limiter.counts();
      expect(counts.QUEUED + counts.RECEIVED).toBe(2);
    } finally {
      await limiter.stop({ dropWaitingJobs: true });
    }
  });

  it("does not space requests at all when the interval is 0", async () => {
    const limiter = new Bottleneck(spacing(0, 3));
    let done = 0;
    await Promise.all(Array.from({ length: 5 }, () => limiter.schedule(async () => void done++)));
    expect(done).toBe(5);
  });
});
