import { rmSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { at, item, missionAfter, planned, requested } from "../../test/support/mission-builders.ts";
import { stopOrphanAgents } from "./orphan-agents.ts";

let proc: string;
beforeEach(async () => {
  proc = await mkdtemp(join(tmpdir(), "naruto-proc-"));
});
afterEach(async () => rm(proc, { recursive: true, force: true }));

async function fakeProcess(pid: number, ppid: number, env: string[], state = "S"): Promise<void> {
  await mkdir(join(proc, String(pid)));
  await writeFile(join(proc, String(pid), "environ"), env.map((e) => `${e}\0`).join(""));
  await writeFile(join(proc, String(pid), "stat"), `${pid} (node) ${state} ${ppid} ${pid} ${pid} 0 -1`);
}

/** A mission whose item `a` was started by `runner`. */
function startedBy(runner: string) {
  return missionAfter([
    requested(),
    planned([item("a"), item("b")]),
    { type: "attempt_started", at: at(2), item: "a", attempt: 1, base: "b".repeat(40), runner },
  ]);
}

const deps = () => ({
  proc,
  kill: (pid: number) => rmSync(join(proc, String(pid)), { recursive: true, force: true }),
  sleep: async () => undefined,
});

describe("stopOrphanAgents", () => {
  it("kills every process of the mission its dead runner left, and nothing else", async () => {
    const m = startedBy("pid 4242");
    await fakeProcess(501, 1, [`NARUTO_MISSION=${m.id}`, "NARUTO_ITEM=a"]); // reparented: its runner died
    await fakeProcess(502, 501, [`NARUTO_MISSION=${m.id}`]); // the agent's own child
    await fakeProcess(503, 1, [`NARUTO_MISSION=${m.id}x`]); // another mission
    await fakeProcess(504, 1, [`NARUTO_MISSION=${m.id}`], "Z"); // exited already
    expect((await stopOrphanAgents(m, deps())).sort()).toEqual([501, 502]);
    expect((await stopOrphanAgents(m, deps())).sort()).toEqual([]);
  });

  it("waits until a killed process is gone", async () => {
    const m = startedBy("pid 4242");
    await fakeProcess(501, 1, [`NARUTO_MISSION=${m.id}`]);
    let polls = 0;
    const killed = await stopOrphanAgents(m, {
      proc,
      kill: () => undefined, // the kernel is slow to tear it down…
      sleep: async () => {
        if (++polls === 3) rmSync(join(proc, "501"), { recursive: true, force: true }); // …then it is gone
      },
    });
    expect(killed).toEqual([501]);
    expect(polls).toBe(3);
  });
});
