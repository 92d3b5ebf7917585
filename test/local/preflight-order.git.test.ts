/**
 * What a refused local run says: the questions that only read (git, the sandbox's probe) are
 * asked at once, but each answer is taken in the order the checks always ran, and a refused run
 * makes nothing (no mission, no branch).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { GitCall } from "../../src/git/run-git.ts";
import { runLocalMission } from "../../src/local/local-mission.ts";
import { silentProgress } from "../../src/local/progress.ts";
import type { MissionEvent } from "../../src/mission/events.ts";
import { SandboxUnavailableError } from "../../src/sandbox/choose.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { fakeConfig, localDeps, planText, runRequest } from "./local-fixture.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function repository(): Promise<TestRepo> {
  const repo = await createTestRepo({ "README.md": "# app\n" });
  cleanups.push(() => repo.remove());
  return repo;
}

/** A sandbox that cannot be had, asked for `required`, answering after the plan was checked. */
const missingSandbox = () => new Promise<never>((_, reject) => setTimeout(() => reject(new SandboxUnavailableError("bwrap: not found")), 50));

const refs = async (repo: TestRepo) => (await repo.git({ args: ["for-each-ref", "--format=%(refname)"], cwd: repo.dir })).stdout.toString().trim().split("\n");

/** A run of `planText` at `baseRef` whose config requires the sandbox that cannot be had. */
const runWithoutSandbox = (repo: TestRepo, planText: string, baseRef = "HEAD") =>
  runLocalMission(
    localDeps(repo, { chooseSandbox: missingSandbox }),
    runRequest(repo, { planText, baseRef, parallel: 1, config: fakeConfig({ sandbox: "required" }) }),
  );

describe("a refused local run", () => {
  it("names its invalid plan before a missing sandbox, and the sandbox's failure is not left unhandled", async () => {
    const repo = await repository();
    const before = await refs(repo);
    const run = runWithoutSandbox(repo, "{ not a plan");
    await expect(run).rejects.toThrow(/plan/i);
    await new Promise((r) => setTimeout(r, 100));
    expect(await refs(repo)).toEqual(before);
  });

  it("with a valid plan, fails on the missing sandbox before it makes anything", async () => {
    const repo = await repository();
    const before = await refs(repo);
    const run = runWithoutSandbox(repo, planText([{ id: "a" }]));
    await expect(run).rejects.toThrow(SandboxUnavailableError);
    expect(await refs(repo)).toEqual(before);
  });

  it("names a base that is not a commit first of all", async () => {
    const repo = await repository();
    const run = runWithoutSandbox(repo, "{ not a plan", "no-such-branch");
    await expect(run).rejects.toThrow(/"no-such-branch" is not a commit/);
  });
});

describe("a local run's start", () => {
  it("makes the mission while `git status` still reads the work tree, and says what it left out before the first agent starts", async () => {
    const repo = await repository();
    await repo.write({ "README.md": "# app, edited\n" });
    const order: string[] = [];
    // A large work tree: its status answers only once the mission's record was taken. A naruto
    // that waited for the status first would wait here until the fallback, and the order shows it.
    let recordTaken = () => {};
    const taken = new Promise<void>((resolve) => {
      recordTaken = resolve;
    });
    const git = async (call: GitCall) => {
      if (call.args.includes("status")) {
        let fallback: NodeJS.Timeout | undefined;
        await Promise.race([taken, new Promise((r) => (fallback = setTimeout(r, 20_000)))]);
        clearTimeout(fallback);
        const done = await repo.git(call);
        order.push("status read");
        return done;
      }
      if (call.args.includes("for-each-ref") && !order.includes("record taken")) {
        order.push("record taken");
        recordTaken();
      }
      return repo.git(call);
    };
    const progress = {
      ...silentProgress,
      error: (e: unknown) => void order.push(e instanceof Error && e.message.includes("uncommitted file") ? "note said" : "other error"),
      event: (e: MissionEvent) => void (e.type === "attempt_started" && order.push("agent started")),
    };
    const m = await runLocalMission(
      localDeps(repo, { git, progress }),
      runRequest(repo, { planText: planText([{ id: "a" }]), parallel: 1, config: fakeConfig() }),
    );
    expect(m.status).toBe("done");
    expect(order.filter((o) => o !== "other error")).toEqual(["record taken", "status read", "note said", "agent started"]);
  });
});
