import { describe, expect, it } from "vitest";
import { createLru } from "./lru.ts";

describe("createLru", () => {
  it("forgets the least recently used entry, where reading an entry makes it recent", () => {
    const lru = createLru<number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    expect(lru.get("a")).toBe(1);
    lru.set("c", 3);
    expect([lru.get("a"), lru.get("b"), lru.get("c")]).toEqual([1, undefined, 3]);
    lru.set("a", 4);
    lru.set("d", 5);
    expect([lru.get("a"), lru.get("c"), lru.get("d")]).toEqual([4, undefined, 5]);
  });
});
