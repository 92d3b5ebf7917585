/**
 * Stopping is prompt (issue 35, bullet 8; issue 31, "stopping always works"): SIGTERM, Ctrl-C
 * (SIGINT) and `naruto cancel` end a run within 10 s, whatever its agents are doing — a planner
 * that hangs mid-request and ignores SIGTERM, an agent that does the same — and the mission stays
 * as it was left (resumable after a signal, cancelled after a cancel), its work kept as ever.
 * The real `bin/naruto.js` as a process; the 10 s bound is the one the issue names, waited for
 * as a bound, never measured.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import type { Mission } from "../../src/mission/document.ts";
import { fakeAgentCommand } from "../support/agents/index.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { fakeCli } from "./cli-io.ts";
import { FAKE_AGENTS_DIR, itemOf, missionProcesses, planText } from "./local-fixture.ts";
import { startNaruto, waitForMission, type Runner } from "./runner-process.ts";

const STOP_BOUND_MS = 10_000;

const repos: TestRepo[] = [];
const runners: Runner[] = [];
afterEach(async () => {
  for (const r of runners.splice(0)) r.child.kill("SIGKILL");
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

/** A repository whose planner and default agent hang (a grandchild that ignores SIGTERM, then both wait for ever). */
async function hangingRepo(): Promise<TestRepo> {
  const repo = await createTestRepo({ "README.md": "# app\n" });
  repos.push(repo);
  const hang = { command: fakeAgentCommand("hang"), read: [FAKE_AGENTS_DIR] };
  const config = { version: 1, agents: { default: hang, hang }, planner: { agent: "hang" }, limits: { max_attempts: 2, item_timeout: "20m" } };
  await repo.commit("naruto config", { ".github/naruto.yml": JSON.stringify(config) });
  await writeFile(join(repo.dir, ".git", "plan.json"), planText([{ id: "a" }]));
  return repo;
}

/** Waits until the mission is in `state` and some process of it runs (the planner or an agent). */
async function runningIn(repo: TestRepo, runner: Runner, state: (m: Mission) => boolean): Promise<Mission> {
  const m = await waitForMission(repo, state, 60_000, runner);
  for (let waited = 0; waited < 30_000 && (await missionProcesses(m.id)).length === 0; waited += 100) await new Promise((r) => setTimeout(r, 100));
  expect((await missionProcesses(m.id)).length).toBeGreaterThan(0);
  return m;
}

/** The runner's end, or a failure naming how long it was waited for. */
async function endsWithin(runner: Runner, ms: number): Promise<Awaited<Runner["exited"]>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`the run did not end within ${ms} ms of being told to stop`)), ms)),
  );
  try {
    return await Promise.race([runner.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe("stopping a run", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("%s ends a run whose planner hangs mid-request within 10 s, and the mission can be resumed", async (signal) => {
    const repo = await hangingRepo();
    const runner = startNaruto(repo.dir, ["run", "--task", "plan something"]);
    runners.push(runner);
    const m = await runningIn(repo, runner, (x) => x.status === "planning");
    runner.child.kill(signal);
    const ended = await endsWithin(runner, STOP_BOUND_MS);
    expect(ended.stderr).toContain(`naruto resume ${m.id}`);
    const after = await waitForMission(repo, () => true);
    // Stopped is not failed: the planner is asked again when the mission resumes.
    expect(after.status).toBe("planning");
    expect(await missionProcesses(m.id)).toEqual([]);
  });

  it("SIGTERM ends a run whose agent hangs mid-request within 10 s; the attempt is interrupted, not failed", async () => {
    const repo = await hangingRepo();
    const runner = startNaruto(repo.dir, ["run", "--plan", ".git/plan.json"]);
    runners.push(runner);
    const m = await runningIn(repo, runner, (x) => x.items.some((i) => i.status === "running"));
    runner.child.kill("SIGTERM");
    await endsWithin(runner, STOP_BOUND_MS);
    const after = await waitForMission(repo, () => true);
    expect(itemOf(after, "a").attempts[0]?.status).toBe("interrupted");
    expect(await missionProcesses(m.id)).toEqual([]);
  });

  it("naruto cancel ends a run whose planner hangs within 10 s", async () => {
    const repo = await hangingRepo();
    const runner = startNaruto(repo.dir, ["run", "--task", "plan something"]);
    runners.push(runner);
    const m = await runningIn(repo, runner, (x) => x.status === "planning");
    expect(await main(["cancel", m.id], fakeCli(repo.dir).io)).toBe(0);
    const ended = await endsWithin(runner, STOP_BOUND_MS);
    expect(ended.code).toBe(1);
    expect((await waitForMission(repo, () => true)).status).toBe("cancelled");
    expect(await missionProcesses(m.id)).toEqual([]);
  });
});
