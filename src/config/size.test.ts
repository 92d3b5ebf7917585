import { describe, expect, it } from "vitest";
import { formatSize, MAX_SIZE_BYTES, parseSize } from "./size.ts";

describe("parseSize", () => {
  it.each([
    ["50MiB", 52_428_800],
    ["50 MiB", 52_428_800],
    ["500KB", 500_000],
    ["1KiB", 1024],
    ["100MB", 100_000_000],
    ["2GiB", MAX_SIZE_BYTES],
    ["1234", 1234],
    ["7B", 7],
    [1000, 1000],
  ] as const)("%j is %d bytes", (text, bytes) => {
    expect(parseSize(text)).toEqual({ ok: true, bytes });
  });

  it.each([["50 megs"], [""], ["1.5MiB"], ["-5MiB"], ["5mib"], ["MiB"], [" 5MiB"], [1.5], [-1]])("rejects %j with the allowed forms", (value) => {
    const result = parseSize(value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain("like 50MiB");
  });

  it("rejects zero and sizes above 2GiB", () => {
    expect(parseSize("0MiB")).toEqual({ ok: false, message: "a size must be larger than 0 bytes" });
    expect(parseSize(0)).toEqual({ ok: false, message: "a size must be larger than 0 bytes" });
    expect(parseSize("3GiB").ok).toBe(false);
  });
});

describe("formatSize", () => {
  it.each([
    [52_428_800, "50MiB"],
    [1024, "1KiB"],
    [1000, "1000B"],
    [MAX_SIZE_BYTES, "2GiB"],
  ])("%d bytes is %s", (bytes, text) => {
    expect(formatSize(bytes)).toBe(text);
  });
});
