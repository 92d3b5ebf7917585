import { describe, expect, it } from "vitest";
import { formatUsd } from "./usd.ts";

describe("formatUsd", () => {
  it("shows cents from a cent up", () => {
    expect([0.01, 0.5, 1, 12.345].map(formatUsd)).toEqual(["$0.01", "$0.50", "$1.00", "$12.35"]);
  });

  it("shows what was spent below a cent, never rounded to a cent or to nothing", () => {
    expect([0.006, 0.0094, 0.000412, 0.0000031].map(formatUsd)).toEqual(["$0.006", "$0.0094", "$0.00041", "$0.0000031"]);
  });

  it("shows nothing spent as $0.00", () => {
    expect(formatUsd(0)).toBe("$0.00");
  });
});
