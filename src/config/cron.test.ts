import { describe, expect, it } from "vitest";
import { cronMatches, latestFiring, parseCron, type Cron } from "./cron.ts";

function cron(text: string): Cron {
  const parsed = parseCron(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.cron;
}

const at = (iso: string) => new Date(iso);

describe("parseCron", () => {
  it("reads numbers, ranges, steps and lists", () => {
    const c = cron("*/15 9-17/4 1,15 * 1-5");
    expect([...c.minutes]).toEqual([0, 15, 30, 45]);
    expect([...c.hours]).toEqual([9, 13, 17]);
    expect([...c.days]).toEqual([1, 15]);
    expect(c.months.size).toBe(12);
    expect([...c.weekdays]).toEqual([1, 2, 3, 4, 5]);
  });

  it("reads day of week 7 as Sunday, and a-/n steps to the end of the field", () => {
    expect([...cron("0 0 * * 7").weekdays]).toEqual([0]);
    expect([...cron("50/5 * * * *").minutes]).toEqual([50, 55]);
  });

  it.each([
    ["0 3 * *", "got 4 field(s)"],
    ["", "got 0 field(s)"],
    ["0 25 * * *", "hour: 25 is outside 0-23"],
    ["0 3 0 * *", "day of month: 0 is outside 1-31"],
    ["0 3 * 13 *", "month: 13 is outside 1-12"],
    ["0 3 * * 8", "day of week: 8 is outside 0-7"],
    ["5-1 * * * *", "minute: the range 5-1 runs backwards"],
    ["*/0 * * * *", "minute: a step must be at least 1"],
    ["@daily * * * *", 'minute: "@daily" is not a number'],
    ["0 3 * * MON", 'day of week: "MON" is not a number'],
  ])("refuses %j with the field and the reason", (text, message) => {
    const parsed = parseCron(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(message);
  });
});

describe("cronMatches", () => {
  it("matches in UTC", () => {
    const c = cron("30 3 * * *");
    expect(cronMatches(c, at("2026-11-30T03:30:00Z"))).toBe(true);
    expect(cronMatches(c, at("2026-11-30T03:30:59Z"))).toBe(true);
    expect(cronMatches(c, at("2026-11-30T03:31:00Z"))).toBe(false);
    expect(cronMatches(c, at("2026-11-30T04:30:00Z"))).toBe(false);
  });

  it("ORs the two day fields when both are restricted, as POSIX cron does", () => {
    // 2026-11-30 is a Monday; the 1st of December a Tuesday.
    const both = cron("0 0 1 * 1");
    expect(cronMatches(both, at("2026-11-30T00:00:00Z"))).toBe(true); // Monday, not the 1st
    expect(cronMatches(both, at("2026-12-01T00:00:00Z"))).toBe(true); // the 1st, a Tuesday
    expect(cronMatches(both, at("2026-12-02T00:00:00Z"))).toBe(false);
    const weekdaysOnly = cron("0 0 * * 1");
    expect(cronMatches(weekdaysOnly, at("2026-12-01T00:00:00Z"))).toBe(false);
  });
});

describe("latestFiring", () => {
  const hour = 60 * 60 * 1000;

  it("finds the latest firing within the window, to the minute", () => {
    expect(latestFiring(cron("0 * * * *"), at("2026-11-30T06:47:12Z"), hour)).toEqual(at("2026-11-30T06:00:00Z"));
    expect(latestFiring(cron("*/15 * * * *"), at("2026-11-30T06:47:12Z"), hour)).toEqual(at("2026-11-30T06:45:00Z"));
    // The current minute counts.
    expect(latestFiring(cron("47 6 * * *"), at("2026-11-30T06:47:59Z"), hour)).toEqual(at("2026-11-30T06:47:00Z"));
  });

  it("lets firings older than the window go", () => {
    expect(latestFiring(cron("0 3 * * *"), at("2026-11-30T06:47:00Z"), hour)).toBeNull();
    expect(latestFiring(cron("0 3 * * *"), at("2026-11-30T03:59:00Z"), hour)).toEqual(at("2026-11-30T03:00:00Z"));
    // Exactly one window back is outside: (now - window, now].
    expect(latestFiring(cron("0 3 * * *"), at("2026-11-30T04:00:00Z"), hour)).toBeNull();
  });

  it("never fires for a date that does not exist", () => {
    expect(latestFiring(cron("0 0 31 2 *"), at("2026-03-01T00:30:00Z"), 40 * 24 * hour)).toBeNull();
  });
});
