import { rmSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killLeftovers, processesWithEnv, TRACKING_ENV } from "./leftovers.ts";

let proc: string;
beforeEach(async () => {
  proc = await mkdtemp(join(tmpdir(), "naruto-proc-"));
});
afterEach(async () => rm(proc, { recursive: true, force: true }));

async function fakeProcess(pid: number, env: string[], state = "S"): Promise<void> {
  await mkdir(join(proc, String(pid)));
  await writeFile(join(proc, String(pid), "environ"), env.map((e) => `${e}\0`).join(""));
  await writeFile(join(proc, String(pid), "stat"), `${pid} (sleep) ${state} 1 1 1 0 -1`);
}

describe("killLeftovers", () => {
  it("kills exactly the processes whose environment holds the tracking entry", async () => {
    await fakeProcess(101, ["PATH=/bin", `${TRACKING_ENV}=abc`]);
    await fakeProcess(102, [`${TRACKING_ENV}=abc`, "HOME=/h"]);
    await fakeProcess(103, [`${TRACKING_ENV}=abcd`]); // another agent's value
    await fakeProcess(104, [`X${TRACKING_ENV}=abc`]); // another variable ending the same
    await fakeProcess(105, [`${TRACKING_ENV}=abc`], "Z"); // exited, waiting for its parent
    await mkdir(join(proc, "self"));
    const signals: [number, string][] = [];
    const killed = await killLeftovers("abc", {
      proc,
      kill: (pid, signal) => {
        signals.push([pid, signal]);
        rmSync(join(proc, String(pid)), { recursive: true, force: true }); // the process is gone
      },
    });
    expect(killed.sort()).toEqual([101, 102]);
    expect(signals).toEqual([
      [101, "SIGKILL"],
      [102, "SIGKILL"],
    ]);
  });

  it("reads a large process table whole, a bounded number of processes at a time", async () => {
    // 300 processes, every seventh holding the entry: none is skipped, whatever the batching.
    for (let pid = 1000; pid < 1300; pid++) await fakeProcess(pid, (pid - 1000) % 7 === 0 ? [`${TRACKING_ENV}=many`] : ["PATH=/bin"]);
    const expected = Array.from({ length: 300 }, (_, i) => 1000 + i).filter((pid) => (pid - 1000) % 7 === 0);
    expect(await processesWithEnv(`${TRACKING_ENV}=many`, { proc })).toEqual(expected);
  });

  it("finds nothing in an empty or missing process table", async () => {
    expect(await killLeftovers("abc", { proc, kill: () => undefined })).toEqual([]);
    expect(await killLeftovers("abc", { proc: join(proc, "missing"), kill: () => undefined })).toEqual([]);
  });
});
