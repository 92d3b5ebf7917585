/**
 * A killed `naruto run` resumed (issue 4 "Tests"): the runner is a real process killed with
 * SIGKILL after some items integrated; `naruto resume ID` finishes the mission without redoing
 * what was integrated (same queue commits, same attempts), with the run's own `--agent` and
 * `--verify`. The agents of a killed runner outlive it (each leads its own process group):
 * resume stops them before it starts their items again, and refuses while the runner — or
 * another resume — still drives the mission.
 */
import { readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { gitCommonDir } from "../../src/engine/records.ts";
import { driverLockPath } from "../../src/local/mission-lock.ts";
import { fakeAgentCommand } from "../support/agents/index.ts";
import { isAlive } from "../support/agents/processes.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { fakeCli } from "./cli-io.ts";
import { itemOf, missionProcesses, missionWorkDirs, planText, queueCommits } from "./local-fixture.ts";
import { bwrapSkipReason } from "../support/sandbox.ts";
import { count, startNaruto, waitForMission } from "./runner-process.ts";
import { FAKE_AGENTS_DIR } from "./local-fixture.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

describe("naruto resume after the runner was killed", () => {
  it("finishes the mission and leaves what was integrated as it was", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    const ids = ["a", "b", "c", "d", "e"];
    await writeFile(join(repo.dir, ".git", "plan.json"), planText(ids.map((id) => ({ id }))));
    // No .github/naruto.yml: the agent and the verify command come only from the command line.
    const agent = `NARUTO_FAKE_SLEEP_MS=600 ${fakeAgentCommand("slow")}`;
    const runner = startNaruto(repo.dir, [
      "run",
      "--plan",
      ".git/plan.json",
      "--read",
      FAKE_AGENTS_DIR,
      "--agent",
      agent,
      "--verify",
      "test -e README.md",
      "--parallel",
      "2",
      "--json",
    ]);

    const partial = await waitForMission(repo, (m) => count(m, "integrated") >= 1 && count(m, "integrated") < ids.length).catch(async (e: unknown) => {
      runner.child.kill("SIGKILL");
      throw new Error(`${String(e)}\nrunner: ${JSON.stringify(await runner.exited)}`);
    });
    runner.child.kill("SIGKILL");
    expect((await runner.exited).signal).toBe("SIGKILL");
    const orphans = await missionProcesses(partial.id);

    const before = await waitForMission(repo, () => true);
    const integratedBefore = before.items.filter((i) => i.status === "integrated");
    const commitsBefore = await queueCommits(repo, before);
    expect(integratedBefore.length).toBeGreaterThanOrEqual(1);

    const cli = fakeCli(repo.dir);
    const code = await main(["resume", before.id, "--json"], cli.io);
    expect(code, cli.stderr()).toBe(0);
    const after = await waitForMission(repo, () => true);
    expect(JSON.parse(cli.stdout())).toMatchObject({ mission: before.id, status: "done", verdict: "approve" });
    for (const pid of orphans) expect(await isAlive(pid)).toBe(false);

    expect(after.items.map((i) => i.status)).toEqual(ids.map(() => "integrated"));
    for (const item of integratedBefore) {
      expect(itemOf(after, item.id).commit).toBe(item.commit);
      expect(itemOf(after, item.id).attempts).toEqual(item.attempts);
    }
    // The queue grew on top of what it held: every item once, the old commits unchanged.
    const commitsAfter = await queueCommits(repo, after);
    expect(commitsAfter.slice(0, commitsBefore.length)).toEqual(commitsBefore);
    expect(commitsAfter.map((c) => c.item).sort()).toEqual(ids);
    // The resumed batches were verified with the run's --verify.
    expect(after.queue.verify_runs).toBeGreaterThan(before.queue.verify_runs);
  });
});

/** The sandboxes a killed run can have left agents in: without one they live on; in bubblewrap they die with the runner. */
const MODES: readonly ("none" | "auto")[] = bwrapSkipReason === null ? ["none", "auto"] : ["none"];

describe.each(MODES)("naruto resume after a killed runner (sandbox: %s)", (mode) => {
  it("refuses while the runner lives; once it is killed, stops what it left, keeps the unfinished work and reruns the items", {
    timeout: 180_000,
  }, async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    await writeFile(join(repo.dir, ".git", "plan.json"), planText([{ id: "a" }, { id: "b" }]));
    // Attempt 1 writes half of its work, then hangs with a grandchild; the next attempt edits.
    const half = 'mkdir -p "src/$NARUTO_ITEM" && echo "half of $NARUTO_ITEM" > "src/$NARUTO_ITEM/half.txt"';
    const agent = `if [ "$NARUTO_ATTEMPT" = 1 ]; then ${half} && exec ${fakeAgentCommand("hang")}; else exec ${fakeAgentCommand("edit")}; fi`;
    const runner = startNaruto(repo.dir, [
      "run",
      "--plan",
      ".git/plan.json",
      "--sandbox",
      mode,
      "--read",
      FAKE_AGENTS_DIR,
      "--agent",
      agent,
      "--parallel",
      "2",
      "--json",
    ]);
    const runnerPid = runner.child.pid ?? 0;
    try {
      const running = await waitForMission(repo, (m) => count(m, "running") === 2, undefined, runner);
      // Both agents and their grandchildren are up.
      const deadline = Date.now() + 20_000;
      while ((await missionProcesses(running.id)).length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

      const refused = fakeCli(repo.dir);
      expect(await main(["resume", running.id], refused.io)).toBe(2);
      expect(refused.stderr()).toContain(`mission ${running.id} is still being run by process ${runnerPid}`);
      const untouched = await waitForMission(repo, () => true);
      expect(untouched.items.map((i) => [i.status, i.attempts.length])).toEqual([
        ["running", 1],
        ["running", 1],
      ]);
    } finally {
      runner.child.kill("SIGKILL");
    }
    expect((await runner.exited).signal).toBe("SIGKILL");
    const before = await waitForMission(repo, () => true);
    let orphans = await missionProcesses(before.id);
    if (mode === "none") {
      // Each agent leads its own process group: killing the runner leaves them running.
      expect(orphans.length).toBeGreaterThanOrEqual(4);
    } else {
      // In bubblewrap every process of an attempt dies with the runner.
      for (let waited = 0; waited < 5000 && orphans.length > 0; waited += 50) {
        await new Promise((r) => setTimeout(r, 50));
        orphans = await missionProcesses(before.id);
      }
      expect(orphans).toEqual([]);
    }

    // A second resume while the first drives the mission is refused.
    const [cli, twin] = [fakeCli(repo.dir), fakeCli(repo.dir)];
    const first = main(["resume", before.id, "--json"], cli.io);
    const lock = driverLockPath(await gitCommonDir(repo.git, repo.dir), before.id);
    const deadline = Date.now() + 20_000;
    // The killed runner's lock is still there: wait until the first resume has taken it over.
    const holder = async () => (JSON.parse(await readFile(lock, "utf8").catch(() => "{}")) as { pid?: number }).pid;
    while ((await holder()) !== process.pid && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(await main(["resume", before.id], twin.io)).toBe(2);
    expect(twin.stderr()).toContain(`mission ${before.id} is still being run by process ${process.pid}`);
    // As root without a sandbox the agents ran as root: the verdict is capped at request_changes (exit 1).
    expect(await first, cli.stderr()).toBe(mode === "none" && process.getuid?.() === 0 ? 1 : 0);
    for (const pid of orphans) expect(await isAlive(pid)).toBe(false);
    const after = await waitForMission(repo, () => true);
    expect(after.status).toBe("done");
    const stopped = mode === "none" ? "; resume stopped the \\d+ processes it left running" : "";
    for (const id of ["a", "b"]) {
      const [first, second] = itemOf(after, id).attempts;
      expect(first?.status).toBe("interrupted");
      expect(first?.reason).toMatch(
        new RegExp(
          `^the runner stopped while the agent ran${stopped}; its partial work is kept at refs/naruto/attempts/${after.id}/${id}/1 \\([0-9a-f]{12}\\)$`,
        ),
      );
      expect(second?.status).toBe("integrated");
      // The half-done work is kept on top of the attempt's base, not integrated.
      const kept = `refs/naruto/attempts/${after.id}/${id}/1`;
      expect(await repo.run("show", `${kept}:src/${id}/half.txt`)).toBe(`half of ${id}`);
      expect(await repo.run("rev-parse", `${kept}^`)).toBe(first?.base);
      expect(await repo.run("ls-tree", "-r", "--name-only", `naruto/${after.id}`, `src/${id}`)).toBe(`src/${id}/${id}.txt`);
    }
    // No work directory of the killed run is left behind, and the repository never had a work tree of naruto's.
    expect(await missionWorkDirs(repo, after.id)).toEqual([]);
    expect((await repo.run("worktree", "list", "--porcelain")).split("\n").filter((l) => l.startsWith("worktree "))).toEqual([
      `worktree ${await realpath(repo.dir)}`,
    ]);
  });
});
