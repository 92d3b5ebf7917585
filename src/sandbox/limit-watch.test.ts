/**
 * The watch over a sandbox's limits (limit-watch.ts) on a `/proc` of the test's own: what it
 * counts, when it stops a run, how often it looks, and that it never mistakes the host's `/proc`
 * (before the sandbox has its own) for the sandbox's.
 */
import { describe, expect, it } from "vitest";
import { ceilingHit, judge, nextDelay, sample, watchLimits, type WatchFs } from "./limit-watch.ts";
import type { LimitHit, SandboxLimits } from "./limits.ts";

const LIMITS: SandboxLimits = { processes: 64, memory: 128 * 1024 ** 2, fileSize: 16 * 1024 ** 2, tmp: 1024 ** 2 };

/** A `/proc` where the sandbox's pid 1 is host pid 500, holding `processes` (pid → threads and RssAnon in kB). */
function fakeProc(processes: () => Record<string, { threads: number; rssKb?: number }>, ownRoot = () => true): WatchFs {
  return {
    readlink: async (path) => {
      if (path === "/proc/500/ns/pid") return "pid:[4026532000]";
      if (path === "/proc/500/root/proc/1/ns/pid") return ownRoot() ? "pid:[4026532000]" : "pid:[4026531836]";
      throw new Error(`ENOENT ${path}`);
    },
    readdir: async (path) => {
      if (path !== "/proc/500/root/proc") throw new Error(`ENOENT ${path}`);
      return ["self", "sys", ...Object.keys(processes())];
    },
    readFile: async (path) => {
      const pid = /^\/proc\/500\/root\/proc\/(\d+)\/status$/.exec(path)?.[1];
      const p = pid === undefined ? undefined : processes()[pid];
      if (p === undefined) throw new Error(`ENOENT ${path}`);
      return `Name:\tx\nThreads:\t${p.threads}\n${p.rssKb === undefined ? "" : `RssAnon:\t${p.rssKb} kB\n`}`;
    },
  };
}

describe("sample", () => {
  it("adds up the threads and the private resident memory of every process of the sandbox", async () => {
    const fs = fakeProc(() => ({ "1": { threads: 1, rssKb: 100 }, "2": { threads: 7, rssKb: 40_000 }, "9": { threads: 1 } }));
    expect(await sample({ pid: 500 }, fs)).toEqual({ tasks: 9, memory: 40_100 * 1024 });
  });

  it("waits while the sandbox's /proc is still the host's, and is done once it is gone", async () => {
    expect(
      await sample(
        { pid: 500 },
        fakeProc(
          () => ({ "1": { threads: 1 } }),
          () => false,
        ),
      ),
    ).toBe("not_yet");
    expect(
      await sample(
        { pid: 501 },
        fakeProc(() => ({})),
      ),
    ).toBeNull();
  });
});

describe("judge", () => {
  it.each([
    [{ tasks: 63, memory: LIMITS.memory }, null],
    [
      { tasks: 64, memory: 0 },
      { limit: "processes", of: 64, seen: 64 },
    ],
    [
      { tasks: 3, memory: LIMITS.memory + 1 },
      { limit: "memory", of: LIMITS.memory, seen: LIMITS.memory + 1, by: "watch" },
    ],
  ] as const)("%o → %o", (seen, hit) => {
    expect(judge(seen, LIMITS)).toEqual(hit);
  });
});

describe("nextDelay", () => {
  it("looks fast while a run is young or its memory past half the limit, and twice a second otherwise", () => {
    const calm = { tasks: 5, memory: 1024 };
    expect(nextDelay(calm, LIMITS, 0)).toBe(20);
    expect(nextDelay(calm, LIMITS, 2)).toBe(80);
    expect(nextDelay(calm, LIMITS, 10)).toBe(500);
    expect(nextDelay({ ...calm, memory: LIMITS.memory / 2 + 1 }, LIMITS, 10)).toBe(20);
    expect(nextDelay({ ...calm, tasks: 33 }, LIMITS, 10)).toBe(100);
  });
});

describe("ceilingHit", () => {
  const MiB = 1024 ** 2;
  const looks = (...mib: number[]) => mib.map((m) => ({ tasks: 3, memory: m * MiB }));

  it("names the memory limit when a run fails right after its memory was seen past half the limit, not falling", () => {
    // A hog at 640 MiB/s seen at 100 MiB, then refused at 256 MiB (RLIMIT_DATA): Node aborts.
    expect(ceilingHit(looks(80, 100), 134, LIMITS)).toEqual({ limit: "memory", of: LIMITS.memory, seen: 100 * MiB, by: "ceiling" });
    expect(ceilingHit(looks(60, 65), 1, LIMITS)?.limit).toBe("memory");
    expect(ceilingHit(looks(100, 100), 1, LIMITS)?.limit).toBe("memory");
    // The latest look came after the hog had ended (its sandbox's pid 1 still there): the one before counts.
    expect(ceilingHit(looks(90, 110, 0.2), 1, LIMITS)).toEqual({ limit: "memory", of: LIMITS.memory, seen: 110 * MiB, by: "ceiling" });
  });

  it("names nothing for a success, a failure below half the limit or while memory fell, or after a single look", () => {
    expect(ceilingHit(looks(80, 100), 0, LIMITS)).toBeNull();
    expect(ceilingHit(looks(80, 100), null, LIMITS)).toBeNull();
    expect(ceilingHit(looks(40, 64), 134, LIMITS)).toBeNull();
    expect(ceilingHit(looks(120, 100), 1, LIMITS)).toBeNull();
    // Standing still, give or take the collector's pages, is not falling.
    expect(ceilingHit(looks(100, 99.9), 1, LIMITS)).toMatchObject({ limit: "memory", by: "ceiling" });
    expect(ceilingHit(looks(100), 134, LIMITS)).toBeNull();
    expect(ceilingHit(looks(), 134, LIMITS)).toBeNull();
    expect(ceilingHit(looks(110, 90, 0.2), 1, LIMITS)).toBeNull();
  });
});

describe("watchLimits", () => {
  it("keeps its last three looks, for how a run that ended by itself ended", async () => {
    let rss = 1000;
    const watch = watchLimits({
      sandbox: { pid: 500 },
      limits: LIMITS,
      onHit: () => undefined,
      fs: fakeProc(() => ({ "1": { threads: 1, rssKb: (rss += 1000) } })),
    });
    expect(watch.last()).toEqual([]);
    for (let waited = 0; waited < 5000 && watch.last().length < 3; waited += 20) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    watch.stop();
    const memory = watch.last().map((l) => l.memory);
    expect(memory).toHaveLength(3);
    expect(memory).toEqual([...memory].sort((a, b) => a - b));
  });

  it("stops the run once, when its processes reach the limit", async () => {
    let processes: Record<string, { threads: number }> = { "1": { threads: 1 } };
    const hits: LimitHit[] = [];
    const watch = watchLimits({ sandbox: { pid: 500 }, limits: LIMITS, onHit: (h) => hits.push(h), fs: fakeProc(() => processes) });
    await new Promise((r) => setTimeout(r, 100));
    expect(hits).toEqual([]);
    processes = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [String(i + 1), { threads: 1 }]));
    for (let waited = 0; waited < 5000 && hits.length === 0; waited += 20) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    watch.stop();
    expect(hits).toEqual([{ limit: "processes", of: 64, seen: 70 }]);
  });
});
