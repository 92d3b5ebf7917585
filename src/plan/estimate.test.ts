import { describe, expect, it } from "vitest";
import { parseEstimate } from "./estimate.ts";

describe("parseEstimate", () => {
  it.each([
    ["10m", 10],
    ["1h", 60],
    ["90s", 1.5],
    ["1h30m", 90],
    ["1h 30m", 90],
    ["2h15m30s", 135.5],
    ["1.5h", 90],
    ["45", 45],
    ["0.5", 0.5],
    [" 10m ", 10],
    ["10M", 10],
    [7, 7],
    [0, 0],
    [2.25, 2.25],
  ])("%j → %d units", (input, units) => {
    expect(parseEstimate(input)).toEqual({ ok: true, value: units });
  });

  it.each([
    ["", "not a duration"],
    ["soon", "not a duration"],
    ["10 minutes", "not a duration"],
    ["30m1h", "not a duration"],
    ["1d", "not a duration"],
    ["-5", "not a duration"],
    [-5, "not negative"],
    [Number.NaN, "finite"],
    [Number.POSITIVE_INFINITY, "finite"],
    ["200000", "longer than"],
    ["9999h", "longer than"],
  ])("rejects %j", (input, message) => {
    const result = parseEstimate(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(message);
  });
});
