import { describe, expect, it } from "vitest";
import { didYouMean, editDistance } from "./did-you-mean.ts";

describe("didYouMean", () => {
  const keys = ["max_parallel", "max_attempts", "item_timeout", "mission_timeout", "max_items"];

  it.each([
    ["max_paralel", "max_parallel"],
    ["max_attemtps", "max_attempts"],
    ["Max_Items", "max_items"],
    ["item_timout", "item_timeout"],
    ["parallelism", null],
    ["x", null],
  ])("%s → %s", (word, expected) => {
    expect(didYouMean(word, keys)).toBe(expected);
  });

  it("counts a transposition as one edit", () => {
    expect(editDistance("ab", "ba")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
  });
});
