import { describe, expect, it } from "vitest";
import { formatDuration, MAX_DURATION_MS, parseDuration } from "./duration.ts";

describe("parseDuration", () => {
  it.each([
    ["90s", 90_000],
    ["10m", 600_000],
    ["1h", 3_600_000],
    ["1h30m", 5_400_000],
    ["2d", 172_800_000],
    ["1h0m5s", 3_605_000],
    ["7d", MAX_DURATION_MS],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each([["30"], [""], ["1.5h"], ["30m1h"], ["1h 30m"], ["-5m"], ["5 m"], ["m"], ["1w"], [" 5m"]])("rejects %j with the allowed forms", (text) => {
    const result = parseDuration(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain("like 90s, 10m, 1h or 1h30m");
  });

  it("rejects zero and durations a timer cannot hold", () => {
    expect(parseDuration("0s")).toEqual({ ok: false, message: "a duration must be longer than 0s" });
    expect(parseDuration("8d").ok).toBe(false);
  });
});

describe("formatDuration", () => {
  it.each([
    [5_400_000, "1h30m"],
    [90_000, "1m30s"],
    [0, "0s"],
    [172_800_000, "2d"],
  ])("%d ms is %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("round-trips with parseDuration", () => {
    for (const text of ["1h30m", "45s", "6h", "1d2h3m4s"]) {
      const parsed = parseDuration(text);
      expect(parsed.ok && formatDuration(parsed.ms)).toBe(text);
    }
  });
});
