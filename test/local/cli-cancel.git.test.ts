/**
 * `naruto cancel` from another process while `naruto run` runs (issue 4): the runner sees it,
 * stops its agents, and ends with the mission cancelled and exit code 1. When the runner was
 * killed, cancel stops the agents it left running itself.
 */
import { access, readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { createLocalMissionStore } from "../../src/store/git-store.ts";
import { applyEvent } from "../../src/mission/store.ts";
import { gitCommonDir } from "../../src/engine/records.ts";
import { reportPaths } from "../../src/local/reports.ts";
import { missionResult } from "../../src/report/index.ts";
import { fakeAgentCommand } from "../support/agents/index.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { item, planned, requested } from "../support/mission-builders.ts";
import { fakeCli } from "./cli-io.ts";
import { itemOf, missionProcesses, missionWorkDirs, planText } from "./local-fixture.ts";
import { bwrapSkipReason } from "../support/sandbox.ts";
import { count, startNaruto, waitForMission } from "./runner-process.ts";
import { FAKE_AGENTS_DIR } from "./local-fixture.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

describe("naruto cancel while naruto run runs", () => {
  it("stops the agents and ends the run with the mission cancelled", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    await writeFile(join(repo.dir, ".git", "plan.json"), planText([{ id: "a" }, { id: "b" }, { id: "c", after: ["a"] }]));
    // Agents that write half of their work, then would think for a minute: only the cancel ends them.
    const agent = `mkdir -p "src/$NARUTO_ITEM" && echo half > "src/$NARUTO_ITEM/half.txt" && NARUTO_FAKE_SLEEP_MS=60000 exec ${fakeAgentCommand("slow")}`;
    const runner = startNaruto(repo.dir, ["run", "--plan", ".git/plan.json", "--read", FAKE_AGENTS_DIR, "--agent", agent, "--json"]);

    const running = await waitForMission(repo, (m) => count(m, "running") === 2 && m.items.every((i) => i.attempts.every((a) => a.status === "running"))).catch(
      async (e: unknown) => {
        runner.child.kill("SIGKILL");
        throw new Error(`${String(e)}\nrunner: ${JSON.stringify(await runner.exited)}`);
      },
    );
    // Wait until the agents really run and wrote their half.
    const deadline = Date.now() + 20_000;
    const halves = async () => {
      const dirs = await missionWorkDirs(repo, running.id);
      return (
        await Promise.all(
          dirs.map((d) =>
            access(join(d.dir.path, "src", d.purpose, "half.txt")).then(
              () => true,
              () => false,
            ),
          ),
        )
      ).filter(Boolean).length;
    };
    while ((await halves()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect((await missionProcesses(running.id)).length).toBeGreaterThan(0);

    const cli = fakeCli(repo.dir);
    expect(await main(["cancel", running.id], cli.io)).toBe(0);
    // (The run may see the cancel on its own before the command looks for it; then it says less.)
    expect(cli.stdout()).toMatch(new RegExp(`^mission ${running.id} cancelled(; the running \`naruto run\` stops its agents within seconds)?\n$`));

    const ended = await runner.exited;
    expect(ended.code, ended.stderr).toBe(1);
    const m = await waitForMission(repo, () => true);
    expect(m.status).toBe("cancelled");
    expect(m.items.map((i) => i.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
    // The unfinished work of the two running agents is kept, as a timeout's is, and the reason says where.
    for (const id of ["a", "b"]) {
      const ref = `refs/naruto/attempts/${m.id}/${id}/1`;
      expect(itemOf(m, id).reason).toMatch(new RegExp(`^cancelled( by .*)?; its partial work is kept at ${ref} \\([0-9a-f]{12}\\)$`));
      expect(await repo.run("show", `${ref}:src/${id}/half.txt`)).toBe("half");
    }
    expect(JSON.parse(ended.stdout)).toEqual(missionResult(m));
    // Every agent process of the mission is gone once the runner has exited.
    expect(await missionProcesses(m.id)).toEqual([]);
    expect(await repo.run("rev-parse", `naruto/${m.id}`)).toBe(m.base.commit);
    // The report beside the state says so too.
    const paths = reportPaths(await gitCommonDir(repo.git, repo.dir), m.id);
    expect(JSON.parse(await readFile(paths.json, "utf8"))).toEqual(missionResult(m));
  });

  it("on SIGINT (Ctrl-C) stops the agents and leaves the mission to resume", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    await writeFile(join(repo.dir, ".git", "plan.json"), planText([{ id: "a" }]));
    const runner = startNaruto(repo.dir, [
      "run",
      "--plan",
      ".git/plan.json",
      "--read",
      FAKE_AGENTS_DIR,
      "--agent",
      `NARUTO_FAKE_SLEEP_MS=60000 ${fakeAgentCommand("slow")}`,
    ]);
    const running = await waitForMission(repo, (m) => m.items.some((i) => i.attempts.some((a) => a.status === "running"))).catch(async (e: unknown) => {
      runner.child.kill("SIGKILL");
      throw new Error(`${String(e)}\nrunner: ${JSON.stringify(await runner.exited)}`);
    });
    const deadline = Date.now() + 20_000;
    while ((await missionProcesses(running.id)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    runner.child.kill("SIGINT");
    const ended = await runner.exited;
    expect(ended.code).toBe(1);
    // The stop message names the mission, and says its agents' unfinished work is kept.
    expect(ended.stderr).toContain(
      `stopping: agents are being stopped, their unfinished work is kept; the mission can be resumed with \`naruto resume ${running.id}\``,
    );
    expect(ended.stdout).toContain(`resume with: naruto resume ${running.id}`);
    const m = await waitForMission(repo, () => true);
    expect(m.status).toBe("running");
    expect(await missionProcesses(m.id)).toEqual([]);
    // The report the summary points at says where the mission stands.
    const paths = reportPaths(await gitCommonDir(repo.git, repo.dir), m.id);
    expect(JSON.parse(await readFile(paths.json, "utf8"))).toEqual(missionResult(m));
  });

  it.each(bwrapSkipReason === null ? (["none", "auto"] as const) : (["none"] as const))(
    "cancels a mission whose runner was killed, stops what it left running and keeps its work (sandbox: %s)",
    { timeout: 180_000 },
    async (mode) => {
      const repo = await createTestRepo({ "README.md": "# app\n" });
      repos.push(repo);
      await writeFile(join(repo.dir, ".git", "plan.json"), planText([{ id: "a" }, { id: "b" }]));
      // Agents that write half of their work, then think for a minute.
      const agent = `mkdir -p "src/$NARUTO_ITEM" && echo half > "src/$NARUTO_ITEM/half.txt" && NARUTO_FAKE_SLEEP_MS=60000 exec ${fakeAgentCommand("slow")}`;
      const runner = startNaruto(repo.dir, ["run", "--plan", ".git/plan.json", "--sandbox", mode, "--read", FAKE_AGENTS_DIR, "--agent", agent]);
      try {
        const running = await waitForMission(repo, (m) => count(m, "running") === 2, undefined, runner);
        // Both agents wrote their half and sleep (each agent's shell became its sleeping node).
        const deadline = Date.now() + 20_000;
        const ready = async () => {
          const dirs = await missionWorkDirs(repo, running.id);
          const found = await Promise.all(
            dirs.map((d) =>
              access(join(d.dir.path, "src", d.purpose, "half.txt")).then(
                () => true,
                () => false,
              ),
            ),
          );
          return found.filter(Boolean).length === 2;
        };
        while (!(await ready()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      } finally {
        runner.child.kill("SIGKILL");
      }
      expect((await runner.exited).signal).toBe("SIGKILL");
      const id = (await waitForMission(repo, () => true)).id;
      if (mode === "none") expect((await missionProcesses(id)).length).toBeGreaterThanOrEqual(2);

      const cli = fakeCli(repo.dir);
      expect(await main(["cancel", id], cli.io)).toBe(0);
      const stopped =
        mode === "none" ? "; stopped \\d+ processes its killed run had left running" : "(; stopped \\d+ processes its killed run had left running)?";
      expect(cli.stdout()).toMatch(
        new RegExp(
          `^mission ${id} cancelled${stopped}\n  a: its unfinished work is kept at refs/naruto/attempts/${id}/a/1 \\([0-9a-f]{12}\\)\n  b: its unfinished work is kept at refs/naruto/attempts/${id}/b/1 \\([0-9a-f]{12}\\)\n$`,
        ),
      );
      expect(await missionProcesses(id)).toEqual([]);
      expect((await waitForMission(repo, () => true)).status).toBe("cancelled");
      expect(await repo.run("show", `refs/naruto/attempts/${id}/b/1:src/b/half.txt`)).toBe("half");
      // The killed run's work directories are gone; the repository never had a work tree of naruto's.
      expect(await missionWorkDirs(repo, id)).toEqual([]);
      expect((await repo.run("worktree", "list", "--porcelain")).split("\n").filter((l) => l.startsWith("worktree "))).toEqual([
        `worktree ${await realpath(repo.dir)}`,
      ]);
    },
  );

  it("cancels a mission whose runner is gone, and writes its report", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    const store = createLocalMissionStore({ git: repo.git, repoDir: repo.dir });
    await applyEvent(store, "m-test1", requested());
    await applyEvent(store, "m-test1", planned([item("a")]));

    const cli = fakeCli(repo.dir);
    expect(await main(["cancel", "m-test1"], cli.io)).toBe(0);
    const m = (await store.load("m-test1"))?.mission;
    expect(m?.status).toBe("cancelled");
    const paths = reportPaths(await gitCommonDir(repo.git, repo.dir), "m-test1");
    expect(JSON.parse(await readFile(paths.json, "utf8"))).toMatchObject({ mission: "m-test1", status: "cancelled" });

    const again = fakeCli(repo.dir);
    expect(await main(["cancel", "m-test1"], again.io)).toBe(0);
    expect(again.stdout()).toContain("had already ended (cancelled)");
    expect(await main(["cancel", "m-nosuch"], fakeCli(repo.dir).io)).toBe(2);
  });
});
