import { describe, expect, it } from "vitest";
import { createMissionMemory } from "./github-memory.ts";

describe("mission memory", () => {
  it("remembers what a version holds until that version is retired", () => {
    const memory = createMissionMemory();
    const one = { tree: "t1", files: new Map([["document.json", "one"]]) };
    const two = { tree: "t2", files: new Map([["document.json", "two"]]) };
    memory.remember("m-1", "v1", one);
    expect(memory.stored("m-1", "v1")).toBe(one);
    expect(memory.stored("m-1", "v2")).toBeUndefined();
    memory.retire("v1");
    expect(memory.isStale("v1")).toBe(true);
    memory.remember("m-1", "v1", one); // a late reader of the old version changes nothing
    memory.remember("m-1", "v2", two);
    expect(memory.stored("m-1", "v2")).toBe(two);
    expect(memory.stored("m-1", "v1")).toBeUndefined();
  });

  it("runs the tasks of one mission one at a time, in order, past a failing one", async () => {
    const memory = createMissionMemory();
    const log: string[] = [];
    const task =
      (name: string, fail = false) =>
      async () => {
        log.push(`start ${name}`);
        await new Promise((r) => setImmediate(r));
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([memory.serial("m-1", task("a")), memory.serial("m-1", task("b", true)), memory.serial("m-1", task("c"))]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  });

  it("shares one read among callers that ask while it runs, and reads again afterwards", async () => {
    const memory = createMissionMemory();
    let reads = 0;
    const read = async () => ++reads;
    expect(await Promise.all([memory.shared("m-1", read), memory.shared("m-1", read)])).toEqual([1, 1]);
    expect(await memory.shared("m-1", read)).toBe(2);
  });
});
