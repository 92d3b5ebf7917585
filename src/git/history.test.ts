import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../plan/paths.ts";
import { createWorkerFixture, type WorkerFixture } from "../../test/support/worker-fixture.ts";
import { finishAttempt, type AttemptOutcome, type FinishAttemptOptions } from "./attempt.ts";
import { diffRefs } from "./history.ts";

let f: WorkerFixture;
afterEach(() => f.repo.remove());

function finish(extra: Partial<FinishAttemptOptions> = {}): Promise<AttemptOutcome> {
  return finishAttempt({
    git: f.repo.git,
    worktree: f.worktree,
    item: { id: f.worktree.item, writes: [ROOT], readonly: false },
    protected: [],
    attempt: 1,
    agent: "test",
    ...extra,
  });
}

async function expectInvalid(code: string, reason: RegExp): Promise<void> {
  const before = await f.repo.run("rev-parse", "--verify", "--quiet", f.worktree.branch).catch(() => "");
  const outcome = await finish();
  expect(outcome).toMatchObject({ kind: "invalid_history", problem: { code } });
  expect(outcome.kind === "invalid_history" ? outcome.reason : "").toMatch(reason);
  // Nothing was written: the worker branch is where the agent left it.
  expect(await f.repo.run("rev-parse", "--verify", "--quiet", f.worktree.branch).catch(() => "")).toBe(before);
}

describe("history the agent left", () => {
  it("folds the agent's own commits into one checkpoint whose parent is the start commit", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.write({ "a.txt": "first\n" });
    await f.agent.git("commit", "-qam", "one");
    await f.agent.write({ "b.txt": "second\n" });
    await f.agent.git("add", "b.txt");
    await f.agent.git("commit", "-qm", "two");
    await f.agent.write({ "c.txt": "uncommitted\n" });

    const outcome = await finish();
    expect(outcome).toMatchObject({ kind: "checkpointed", base: f.worktree.start, changed: ["a.txt", "b.txt", "c.txt"] });
    const commit = outcome.kind === "checkpointed" ? outcome.commit : "";
    expect(await f.repo.run("rev-parse", `${commit}^@`)).toBe(f.worktree.start);
    expect(await f.repo.run("rev-list", "--count", `${f.worktree.start}..${f.worktree.branch}`)).toBe("1");
  });

  it("accepts commits on a detached HEAD that descends from the start", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.git("checkout", "-q", "--detach");
    await f.agent.write({ "a.txt": "detached\n" });
    await f.agent.git("commit", "-qam", "on a detached head");
    expect(await finish()).toMatchObject({ kind: "checkpointed", changed: ["a.txt"] });
  });

  it("fails when HEAD was reset to an unrelated commit", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    const empty = await f.agent.git("hash-object", "-t", "tree", "-w", "--stdin");
    const unrelated = await f.agent.git("commit-tree", "-m", "unrelated root", empty);
    await f.agent.git("reset", "-q", "--hard", unrelated);
    await expectInvalid("not_descendant", /HEAD .* no longer descends from the start commit/);
  });

  it("fails when HEAD was reset behind the start commit", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" }, { prepare: (repo) => repo.commit("second", { "a.txt": "b\n" }).then(() => undefined) });
    await f.agent.git("reset", "-q", "--hard", "HEAD~1");
    await expectInvalid("not_descendant", /no longer descends/);
  });

  it.each([
    ["creates a branch", ["branch", "feature"], /refs\/heads\/feature \(created\)/],
    ["creates a tag", ["tag", "v1"], /refs\/tags\/v1 \(created\)/],
    ["moves another branch", ["branch", "-f", "keep", "HEAD"], /refs\/heads\/keep \(moved\)/],
    ["deletes another branch", ["branch", "-D", "keep"], /refs\/heads\/keep \(deleted\)/],
  ])("fails when the agent %s", async (_, args, reason) => {
    f = await createWorkerFixture({ "a.txt": "a\n" }, { prepare: (repo) => repo.run("branch", "keep").then(() => undefined) });
    await f.agent.write({ "a.txt": "changed\n" });
    await f.agent.git("commit", "-qam", "agent commit");
    await f.agent.git(...args);
    await expectInvalid("refs_changed", reason);
  });

  it("fails when the agent stashed work away", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.write({ "a.txt": "hidden in a stash\n" });
    await f.agent.git("stash", "-q");
    await expectInvalid("refs_changed", /refs\/stash \(created\)/);
  });

  it("fails when the agent switched to another branch", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.git("switch", "-q", "-c", "elsewhere");
    await f.agent.write({ "a.txt": "changed\n" });
    await expectInvalid("head_on_other_branch", /HEAD was switched to refs\/heads\/elsewhere/);
  });

  it("fails when HEAD has no commit", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.git("update-ref", "-d", f.worktree.branch);
    await expectInvalid("no_head", /HEAD has no commit/);
  });

  it("fails when the worker branch was deleted behind a detached HEAD", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.git("checkout", "-q", "--detach");
    await f.agent.git("branch", "-D", "naruto/m-test--item");
    await expectInvalid("branch_deleted", /was deleted/);
  });

  it("does not blame the agent for refs listed as shared (moved by the user or the queue meanwhile)", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.repo.commit("the user commits on main meanwhile", { "user.txt": "u\n" });
    await f.repo.run("branch", "naruto/m-test--other-item", "main");
    await f.agent.write({ "a.txt": "changed\n" });
    expect(await finish()).toMatchObject({ kind: "invalid_history", problem: { code: "refs_changed" } });
    expect(await finish({ sharedRefs: ["refs/heads/main", "refs/heads/naruto/"] })).toMatchObject({ kind: "checkpointed", changed: ["a.txt"] });
  });
});

describe("diffRefs", () => {
  it("lists created, moved and deleted refs by name", () => {
    expect(diffRefs({ "refs/a": "1", "refs/b": "2", "refs/c": "3" }, { "refs/a": "1", "refs/b": "9", "refs/d": "4" })).toEqual([
      { ref: "refs/b", before: "2", after: "9" },
      { ref: "refs/c", before: "3", after: null },
      { ref: "refs/d", before: null, after: "4" },
    ]);
  });
});
