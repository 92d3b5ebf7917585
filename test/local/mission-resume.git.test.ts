/**
 * Resuming local missions in-process: one whose runner stopped before the plan was made (it
 * plans its own plan text again, not with the planner agent), and one stopped with Ctrl-C while
 * agents ran (they are stopped, the mission stays resumable, and resume finishes it).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createLocalMissionStore } from "../../src/store/git-store.ts";
import { createQueueBranch } from "../../src/queue/queue.ts";
import { runLocalMission } from "../../src/local/local-mission.ts";
import type { Progress } from "../../src/local/progress.ts";
import { applyEvent } from "../../src/mission/store.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { settings } from "../support/mission-builders.ts";
import { fakeConfig, itemOf, localDeps, missionProcesses, planText, queueCommits, resumeMission, runMission, runRequest } from "./local-fixture.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

async function repo(): Promise<TestRepo> {
  const r = await createTestRepo({ "README.md": "# app\n" });
  repos.push(r);
  return r;
}

describe("resuming a local mission", () => {
  it("plans the mission's own plan text when the runner stopped before planning", async () => {
    const r = await repo();
    const id = "m-planning1";
    const base = await r.run("rev-parse", "HEAD");
    await createQueueBranch({ git: r.git, repoDir: r.dir, mission: id, base });
    // What `naruto run --plan` stores first; the runner died before the `planned` event.
    await applyEvent(createLocalMissionStore({ git: r.git, repoDir: r.dir }), id, {
      type: "requested",
      at: new Date().toISOString(),
      id,
      task: "run the plan",
      source: { kind: "local", cwd: r.dir },
      base: { ref: "main", commit: base },
      queue_branch: `naruto/${id}`,
      settings: settings(),
      plan_text: planText([{ id: "a" }, { id: "b", after: ["a"] }], "The stored plan"),
    });

    // The planner agent here is the `edit` agent, which writes no plan: planning again with it would fail.
    const m = await resumeMission(r, id);
    expect(m.plan_title).toBe("The stored plan");
    expect(m.status).toBe("done");
    expect(m.items.map((i) => [i.id, i.status])).toEqual([
      ["a", "integrated"],
      ["b", "integrated"],
    ]);
  });

  it("stops the agents on Ctrl-C, keeps the mission resumable, and resume finishes it", async () => {
    const r = await repo();
    const shutdown = new AbortController();
    let id = "";
    const progress: Progress = {
      event(e, m) {
        id = m.id;
        if (e.type === "attempt_started") shutdown.abort();
      },
      output() {},
      error() {},
      close() {},
    };
    const items = [
      { id: "a", agent: "slow" },
      { id: "b", agent: "slow" },
    ];
    const options = { slowMs: 20_000 };
    const stopped = await runMission(r, items, options, { progress, shutdown: shutdown.signal });

    expect(stopped.id).toBe(id);
    expect(stopped.status).toBe("running");
    expect(await missionProcesses(id)).toEqual([]);
    expect(stopped.items.flatMap((i) => i.attempts.map((a) => a.status))).toContain("interrupted");
    expect(await queueCommits(r, stopped)).toEqual([]);

    const done = await resumeMission(r, id, { slowMs: 100 });
    expect(done.status).toBe("done");
    expect(done.verdict?.verdict).toBe("approve");
    for (const name of ["a", "b"]) {
      const item = itemOf(done, name);
      expect(item.status).toBe("integrated");
      // Interrupted attempts are not the agent's fault: none of them counts against max_attempts.
      expect(item.attempts.filter((a) => a.status !== "interrupted").map((a) => a.status)).toEqual(["integrated"]);
    }
  });

  it("records no attempt that never started: one dispatched as the run stopped is forgotten on resume", async () => {
    const r = await repo();
    const shutdown = new AbortController();
    const progress: Progress = {
      event(e) {
        if (e.type === "attempt_started") shutdown.abort();
      },
      output() {},
      error() {},
      close() {},
    };
    // One agent at a time: when a stops, the engine dispatches b, which the stopping run does not start.
    const stopped = await runLocalMission(
      localDeps(r, { progress, shutdown: shutdown.signal }),
      runRequest(r, { planText: planText([{ id: "a", agent: "slow" }, { id: "b" }]), parallel: 1, config: fakeConfig({ slowMs: 20_000 }) }),
    );
    const never = stopped.items.flatMap((i) => i.attempts.filter((a) => a.started_at === null).map((a) => `${i.id}#${a.n}`));
    expect(never).toHaveLength(1);

    const done = await resumeMission(r, stopped.id, { slowMs: 100 });
    expect(done.status).toBe("done");
    // Every attempt on record began; the one that never did was forgotten, and its number reused.
    expect(done.items.flatMap((i) => i.attempts.filter((a) => a.started_at === null))).toEqual([]);
    expect(done.items.map((i) => [i.id, i.attempts.map((a) => a.status)])).toEqual([
      ["a", ["interrupted", "integrated"]],
      ["b", ["integrated"]],
    ]);
  });
});
