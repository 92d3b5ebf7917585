import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { driverLockPath, holdMission, MissionStillRunningError } from "./mission-lock.ts";

let common: string;
beforeEach(async () => {
  common = await mkdtemp(join(tmpdir(), "naruto-lock-"));
});
afterEach(async () => rm(common, { recursive: true, force: true }));

const other = { pid: 4242, start: "777" };

describe("holdMission", () => {
  it("lets one driver hold a mission; another is refused, naming the holder, until it is given back", async () => {
    const release = await holdMission(common, "m-1");
    const lock = driverLockPath(common, "m-1");
    expect(JSON.parse(await readFile(lock, "utf8"))).toMatchObject({ pid: process.pid });
    const error = await holdMission(common, "m-1", { self: other, alive: async () => true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissionStillRunningError);
    expect(String(error)).toContain(`mission m-1 is still being run by process ${process.pid}`);
    // Other missions are not held.
    await (await holdMission(common, "m-2", { self: other }))();
    await release();
    expect(await readdir(dirname(lock))).toEqual([]); // nothing left, not even the file written aside
    await (await holdMission(common, "m-1", { self: other }))();
  });

  it("takes over the lock of a holder that died", async () => {
    await (await holdMission(common, "m-1", { self: other }))();
    await writeFile(driverLockPath(common, "m-1"), `${JSON.stringify(other)}\n`); // killed while holding it
    const seen: number[] = [];
    const release = await holdMission(common, "m-1", { alive: async (h) => (seen.push(h.pid), false) });
    expect(seen.length > 0 && seen.every((pid) => pid === 4242)).toBe(true);
    expect(JSON.parse(await readFile(driverLockPath(common, "m-1"), "utf8"))).toMatchObject({ pid: process.pid });
    await release();
  });

  it("lets exactly one of several drivers that find the same dead holder take over", async () => {
    const dead = `${JSON.stringify(other)}\n`;
    const contenders = [
      { pid: 1001, start: "1" },
      { pid: 1002, start: "2" },
      { pid: 1003, start: "3" },
    ];
    const alive = async (h: { pid: number }) => h.pid !== other.pid; // the contenders live; 4242 died
    await (await holdMission(common, "m-1", { self: other }))(); // makes the folder
    for (let round = 0; round < 20; round++) {
      await writeFile(driverLockPath(common, "m-1"), dead);
      const results = await Promise.allSettled(contenders.map((self) => holdMission(common, "m-1", { self, alive })));
      const held = results.filter((r) => r.status === "fulfilled");
      expect(held).toHaveLength(1);
      for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(MissionStillRunningError);
      await (held[0] as PromiseFulfilledResult<() => Promise<void>>).value();
    }
  });

  it("does not take a reused pid for the holder: the process that has it now started later", async () => {
    await (await holdMission(common, "m-1", { self: other }))();
    // This very process's pid, with another start time: the holder was an earlier process.
    await writeFile(driverLockPath(common, "m-1"), `${JSON.stringify({ pid: process.pid, start: "1" })}\n`);
    await (await holdMission(common, "m-1"))();
  });

  it("takes over a file that is not a lock naruto wrote", async () => {
    await (await holdMission(common, "m-1", { self: other }))();
    await writeFile(driverLockPath(common, "m-1"), "garbage");
    await (await holdMission(common, "m-1"))();
  });

  it("gives back only its own lock", async () => {
    const release = await holdMission(common, "m-1", { self: other });
    await writeFile(driverLockPath(common, "m-1"), `${JSON.stringify({ pid: 99, start: "5" })}\n`); // taken over meanwhile
    await release();
    expect(JSON.parse(await readFile(driverLockPath(common, "m-1"), "utf8"))).toEqual({ pid: 99, start: "5" });
  });
});
