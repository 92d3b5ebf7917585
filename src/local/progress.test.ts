import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { MissionEvent } from "../mission/index.ts";
import { at, item, planned, requested, run } from "../../test/support/mission-builders.ts";
import { logProgress, PLANNER_OUTPUT, terminalProgress } from "./progress.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A clock that reads the fake timers' time, started at `at(0)`. */
function clock(): () => Date {
  const start = Date.parse(at(0));
  const base = Date.now();
  return () => new Date(start + (Date.now() - base));
}

function drive(events: MissionEvent[], progress: ReturnType<typeof logProgress>) {
  const results = run(events);
  results.forEach((r, i) => {
    const e = events[i];
    if (e) progress.event(e, r.mission);
  });
  return results.at(-1)?.mission;
}

describe("logProgress, without a terminal", () => {
  it("says every minute which items still run, for how long, and their agent's last line", () => {
    const out: string[] = [];
    const progress = logProgress((t) => out.push(t), clock());
    drive(
      [requested(), planned([item("a"), item("b")]), { type: "attempt_started", at: at(0), item: "a", attempt: 1, base: "b".repeat(40), runner: null }],
      progress,
    );
    progress.output("a", Buffer.from("thinking…\n\x1b[31mediting src/a/x.ts\x1b[0m\n"));
    out.length = 0;
    vi.advanceTimersByTime(60_000);
    // b was asked for at the plan, a minute in; a began at once.
    expect(out).toEqual(["[01:00] a: attempt 1 running for 01:00 — editing src/a/x.ts\n", "[01:00] b: attempt 1 running for 00:00\n"]);
    vi.advanceTimersByTime(60_000);
    expect(out.at(-2)).toBe("[02:00] a: attempt 1 running for 02:00 — editing src/a/x.ts\n");
    progress.close();
    out.length = 0;
    vi.advanceTimersByTime(120_000);
    expect(out).toEqual([]);
  });

  it("says so while the planner plans", () => {
    const out: string[] = [];
    const progress = logProgress((t) => out.push(t), clock());
    drive([requested()], progress);
    progress.output(PLANNER_OUTPUT, Buffer.from("reading src/\n"));
    vi.advanceTimersByTime(60_000);
    expect(out.at(-1)).toBe("[01:00] planner: running for 01:00 — reading src/\n");
    progress.close();
  });

  it("says of an attempt a stopped run never began that it starts again, not that it was interrupted", () => {
    const out: string[] = [];
    const progress = logProgress((t) => out.push(t), clock(), { every: null });
    drive(
      [
        requested(),
        planned([item("a")]),
        {
          type: "attempt_finished",
          at: at(0),
          item: "a",
          attempt: 1,
          outcome: { kind: "interrupted", reason: "never started: the runner stopped before it began" },
        },
      ],
      progress,
    );
    expect(out.at(-1)).toBe("[00:00] a: attempt 1 had not begun when the last run stopped: it starts again, and does not count\n");
  });
});

describe("terminalProgress", () => {
  it("shows the planner, its time and its last line in the live block while it plans", () => {
    const out: string[] = [];
    const progress = terminalProgress((t) => out.push(t), clock());
    drive([requested()], progress);
    progress.output(PLANNER_OUTPUT, Buffer.from("reading src/\n"));
    vi.advanceTimersByTime(5_000);
    expect(out.at(-1)).toContain("⟳ planner                  00:05  reading src/\n");
    progress.close();
  });
});
