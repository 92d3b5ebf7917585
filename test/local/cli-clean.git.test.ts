/**
 * `naruto clean` on a repository with a finished, a failed, a cancelled and a running mission:
 * the ended ones lose their integrated items' worker branches and their work directories; queue
 * branches and work found nowhere else stay unless asked; the running one is never touched;
 * `--dry-run` deletes nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { gitCommonDir } from "../../src/engine/records.ts";
import { createLocalMissionStore } from "../../src/store/git-store.ts";
import { holdMission } from "../../src/local/mission-lock.ts";
import type { Mission } from "../../src/mission/document.ts";
import { createWorkDir } from "../../src/sandbox/work-dir.ts";
import { defaultWorkRoot, missionWorkFolder, workRepo } from "../../src/sandbox/work-root.ts";
import { listMissionWorkDirs } from "../../src/sandbox/remove-work-dir.ts";
import { at, missionAfter, requested } from "../support/mission-builders.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { cliEnv, fakeCli } from "./cli-io.ts";
import { runMission } from "./local-fixture.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

async function naruto(repo: TestRepo, argv: string[]) {
  const cli = fakeCli(repo.dir);
  const code = await main(argv, cli.io);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

const refsOf = async (repo: TestRepo) => (await repo.run("for-each-ref", "--format=%(refname)")).split("\n").filter((r) => r !== "");

/** A mission stored as it would be after `events`, with a worker branch, kept work and a work directory. */
async function storedMission(repo: TestRepo, id: string, last: Parameters<typeof missionAfter>[0]): Promise<Mission> {
  const head = await repo.run("rev-parse", "HEAD");
  const events = [{ ...requested(), id, queue_branch: `naruto/${id}`, base: { ref: "main", commit: head } }, ...last];
  const mission = { ...missionAfter(events as never), updated_at: at(1) };
  const saved = await createLocalMissionStore({ git: repo.git, repoDir: repo.dir }).save(mission, null);
  if (!saved.ok) throw new Error(`could not store ${id}`);
  await repo.run("branch", `naruto/${id}`, head);
  await repo.run("branch", `naruto/${id}--a`, head);
  await repo.run("update-ref", `refs/naruto/attempts/${id}/a/1`, head);
  const folder = missionWorkFolder(defaultWorkRoot(cliEnv(), { override: null, cwd: repo.dir }), await workRepo(repo.git, repo.dir), id);
  await createWorkDir({
    git: repo.git,
    repo: await workRepo(repo.git, repo.dir),
    folder,
    label: "a.1",
    commit: head,
    record: { mission: id, purpose: "a", attempt: 1 },
  });
  return mission;
}

async function workDirsOf(repo: TestRepo, id: string): Promise<number> {
  const folder = missionWorkFolder(defaultWorkRoot(cliEnv(), { override: null, cwd: repo.dir }), await workRepo(repo.git, repo.dir), id);
  return (await listMissionWorkDirs(folder)).length;
}

describe("naruto clean", () => {
  it("cleans ended missions, keeps queues and kept work unless asked, and never touches a running one", { timeout: 180_000 }, async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    // Two real missions: one approved, one whose only item failed.
    const done = await runMission(repo, [{ id: "a" }, { id: "b" }]);
    const failed = await runMission(repo, [{ id: "c", agent: "crash" }], { maxAttempts: 1 });
    expect(done.verdict?.verdict).toBe("approve");
    expect(failed.verdict?.verdict).not.toBe("approve");
    await storedMission(repo, "m-cancel1", [{ type: "cancelled", at: at(1), by: null }]);
    await storedMission(repo, "m-run0001", []);
    const release = await holdMission(await gitCommonDir(repo.git, repo.dir), "m-run0001");
    try {
      const before = await refsOf(repo);
      expect(before).toEqual(expect.arrayContaining([`refs/heads/naruto/${done.id}--a`, `refs/heads/naruto/${done.id}--b`, "refs/heads/naruto/m-cancel1--a"]));

      const dry = await naruto(repo, ["clean", "--dry-run"]);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(`would clean ${done.id} (done): 2 branches, 0 work directories`);
      // m-cancel1's item was never integrated: its worker branch is the only copy of its work.
      expect(dry.stdout).toContain("would clean m-cancel1 (cancelled): 0 branches, 1 work directory");
      expect(dry.stdout).toContain("left m-run0001 alone: it has not ended (planning): `naruto cancel m-run0001` first");
      expect(await refsOf(repo)).toEqual(before);
      expect(await workDirsOf(repo, "m-cancel1")).toBe(1);

      const clean = await naruto(repo, ["clean"]);
      expect(clean.code).toBe(0);
      const after = await refsOf(repo);
      for (const id of [done.id, failed.id, "m-cancel1"]) expect(after).toContain(`refs/heads/naruto/${id}`);
      expect(after.filter((r) => r.startsWith(`refs/heads/naruto/${done.id}--`))).toEqual([]);
      expect(after).toEqual(expect.arrayContaining(["refs/heads/naruto/m-cancel1--a", "refs/naruto/attempts/m-cancel1/a/1"]));
      expect(await workDirsOf(repo, "m-cancel1")).toBe(0);
      // The running mission keeps everything.
      expect(after).toEqual(expect.arrayContaining(["refs/heads/naruto/m-run0001", "refs/heads/naruto/m-run0001--a", "refs/naruto/attempts/m-run0001/a/1"]));
      expect(await workDirsOf(repo, "m-run0001")).toBe(1);
      // The missions are still listed.
      expect((await naruto(repo, ["status"])).stdout).toContain("m-cancel1");

      const all = await naruto(repo, ["clean", "--mission", "m-cancel1", "--queues", "--kept"]);
      expect(all.code).toBe(0);
      // Only its record is left: `naruto status` still lists it.
      expect((await refsOf(repo)).filter((r) => r.includes("m-cancel1"))).toEqual(["refs/naruto/missions/m-cancel1"]);
      expect((await naruto(repo, ["clean"])).stdout).toContain("nothing to clean");
    } finally {
      await release();
    }
  });

  it("cleans only missions that ended long enough ago with --older-than, and refuses a bad age", { timeout: 120_000 }, async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    const done = await runMission(repo, [{ id: "a" }]);
    expect((await naruto(repo, ["clean", "--older-than", "1d"])).stdout).toContain("nothing to clean");
    expect(await refsOf(repo)).toContain(`refs/heads/naruto/${done.id}--a`);
    // m-old is dated 2026-01-01 (the builders' clock): long ago.
    await storedMission(repo, "m-old0001", [{ type: "cancelled", at: at(1), by: null }]);
    const r = await naruto(repo, ["clean", "--older-than", "30d"]);
    expect(r.stdout).toContain("cleaned m-old0001");
    expect(await refsOf(repo)).toContain(`refs/heads/naruto/${done.id}--a`);
    const unknown = await naruto(repo, ["clean", "--mission", "m-nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no mission m-nope");
    const bad = await naruto(repo, ["clean", "--older-than", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--older-than soon: expected an age like 12h, 7d or 30d");
  });
});
