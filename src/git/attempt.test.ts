import { afterEach, describe, expect, it } from "vitest";
import { normalizePath, type RepoPath } from "../plan/paths.ts";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { agentHands, createWorkerFixture, snapshotCheckout, type WorkerFixture } from "../../test/support/worker-fixture.ts";
import { AttemptMismatchError, finishAttempt, type AttemptOutcome, type FinishAttemptOptions } from "./attempt.ts";
import { createWorktree, removeWorktree } from "./worktree.ts";

function paths(...written: string[]): RepoPath[] {
  return written.map((w) => {
    const n = normalizePath(w);
    if (!n.ok) throw new Error(n.message);
    return n.value;
  });
}

const PROTECTED = paths(".github/workflows/", ".github/naruto.yml");
let f: WorkerFixture;
let repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.map((r) => r.remove()));
  repos = [];
});
async function fixture(files: Record<string, string>): Promise<WorkerFixture> {
  const made = await createWorkerFixture(files);
  repos.push(made.repo);
  return made;
}

function finish(writes: string[], extra: Partial<FinishAttemptOptions> = {}): Promise<AttemptOutcome> {
  return finishAttempt({
    git: f.repo.git,
    worktree: f.worktree,
    item: { id: "item", title: "Validate users input", writes: paths(...writes), readonly: writes.length === 0 },
    protected: PROTECTED,
    attempt: 3,
    agent: "claude",
    ...extra,
  });
}

function commitOf(outcome: AttemptOutcome): string {
  if (outcome.kind !== "checkpointed") throw new Error(`expected a checkpoint, got ${JSON.stringify(outcome)}`);
  return outcome.commit;
}

describe("finishAttempt: the checkpoint", () => {
  it("is one commit on the worker branch, parent = start, with title, body, trailers and the default author", async () => {
    f = await fixture({ "src/api/users.ts": "old\n" });
    await f.agent.write({ "src/api/users.ts": "new\n" });
    const outcome = await finish(["src/api/"], { summary: "Added validation." });
    const commit = commitOf(outcome);

    expect(outcome).toMatchObject({ base: f.worktree.start, branch: "refs/heads/naruto/m-test--item", changed: ["src/api/users.ts"] });
    expect(await f.repo.run("rev-parse", f.worktree.branch)).toBe(commit);
    expect(await f.repo.run("rev-parse", `${commit}^@`)).toBe(f.worktree.start);
    expect(await f.repo.run("log", "-1", "--format=%an <%ae>|%cn <%ce>", commit)).toBe(
      "naruto <naruto@users.noreply.github.com>|naruto <naruto@users.noreply.github.com>",
    );
    expect(await f.repo.run("log", "-1", "--format=%B", commit)).toBe(
      "Validate users input\n\nAdded validation.\n\nNaruto-Mission: m-test\nNaruto-Item: item\nNaruto-Attempt: 3\nNaruto-Agent: claude\n",
    );
    expect(await f.repo.run("log", "-1", "--format=%(trailers:only,unfold)", commit)).toBe(
      "Naruto-Mission: m-test\nNaruto-Item: item\nNaruto-Attempt: 3\nNaruto-Agent: claude\n",
    );
    expect(await f.repo.run("diff", "--name-only", `${commit}^`, commit)).toBe("src/api/users.ts");
  });

  it("uses the configured author and date", async () => {
    f = await fixture({ "a.txt": "a\n" });
    await f.agent.write({ "a.txt": "b\n" });
    const commit = commitOf(await finish(["a.txt"], { author: { name: "Bot", email: "bot@example.test" }, date: new Date("2026-02-03T04:05:06Z") }));
    expect(await f.repo.run("log", "-1", "--format=%an <%ae> %aI|%cn %cI", commit)).toBe("Bot <bot@example.test> 2026-02-03T04:05:06+00:00|Bot 2026-02-03T04:05:06+00:00");
  });

  it("holds exactly what the agent left: committed, staged, unstaged and untracked, ignored files excepted", async () => {
    f = await fixture({ ".gitignore": "*.log\n", "src/a.ts": "a\n", "src/b.ts": "b\n" });
    await f.agent.write({ "src/a.ts": "committed\n" });
    await f.agent.git("commit", "-qam", "wip");
    await f.agent.write({ "src/b.ts": "unstaged\n", "src/c.ts": "untracked\n", "src/debug.log": "ignored\n" });
    const commit = commitOf(await finish(["src/"]));
    expect(await f.repo.run("ls-tree", "-r", "--name-only", commit)).toBe(".gitignore\nsrc/a.ts\nsrc/b.ts\nsrc/c.ts");
    expect(await f.repo.run("show", `${commit}:src/b.ts`)).toBe("unstaged");
  });

  it("is made for a one-line change too (no threshold)", async () => {
    f = await fixture({ "a.txt": "a\n" });
    await f.agent.chmod("a.txt", 0o755);
    expect(await finish(["a.txt"])).toMatchObject({ kind: "checkpointed", changed: ["a.txt"] });
  });

  it("is not made when nothing changed (no_changes), even after commits that cancel out", async () => {
    f = await fixture({ "a.txt": "a\n" });
    expect(await finish(["a.txt"])).toEqual({ kind: "no_changes", base: f.worktree.start });
    await f.agent.write({ "a.txt": "b\n" });
    await f.agent.git("commit", "-qam", "change");
    await f.agent.git("revert", "--no-edit", "HEAD");
    expect(await finish(["a.txt"])).toEqual({ kind: "no_changes", base: f.worktree.start });
  });

  it("refuses an item that does not belong to the work tree", async () => {
    f = await fixture({ "a.txt": "a\n" });
    const wrong = finishAttempt({ git: f.repo.git, worktree: f.worktree, item: { id: "other", writes: [], readonly: true }, protected: [], attempt: 1, agent: "x" });
    await expect(wrong).rejects.toBeInstanceOf(AttemptMismatchError);
    await expect(finish([], { mission: "m-other" })).rejects.toBeInstanceOf(AttemptMismatchError);
  });
});

describe("finishAttempt: out of scope leaves no checkpoint", () => {
  async function expectOutOfScope(writes: string[], rules: Record<string, string[]>): Promise<void> {
    const outcome = await finish(writes);
    if (outcome.kind !== "out_of_scope") throw new Error(`expected out_of_scope, got ${outcome.kind}`);
    const got: Record<string, string[]> = {};
    for (const v of outcome.violations) (got[v.path] ??= []).push(v.rule);
    expect(got).toEqual(rules);
    expect(await f.repo.run("log", "--all", "--format=%H", "--grep=^Naruto-Mission:")).toBe("");
  }

  it("a file outside the writes", async () => {
    f = await fixture({ "src/api/a.ts": "a\n", "src/lib/b.ts": "b\n" });
    await f.agent.write({ "src/api/a.ts": "ok\n", "src/lib/b.ts": "not mine\n" });
    await expectOutOfScope(["src/api/"], { "src/lib/b.ts": ["outside_writes"] });
    expect(await f.repo.run("rev-parse", f.worktree.branch)).toBe(f.worktree.start);
  });

  it("a rename out of the writes (both sides are judged)", async () => {
    f = await fixture({ "src/api/a.ts": "line\n".repeat(10) });
    await f.agent.rename("src/api/a.ts", "src/lib/a.ts");
    await expectOutOfScope(["src/api/"], { "src/lib/a.ts": ["outside_writes"] });
  });

  it("a protected path", async () => {
    f = await fixture({ "a.txt": "a\n" });
    await f.agent.write({ ".github/workflows/ci.yml": "on: push\n" });
    await expectOutOfScope(["."], { ".github/workflows/ci.yml": ["protected"] });
  });

  it("a symlink pointing outside the writes or the repository", async () => {
    f = await fixture({ "src/api/a.ts": "a\n" });
    await f.agent.symlink("../../../../etc/passwd", "src/api/escape");
    await f.agent.symlink("/etc/passwd", "src/api/absolute");
    await f.agent.symlink("../lib/secret.ts", "src/api/sideways");
    await f.agent.symlink("a.ts", "src/api/fine");
    await expectOutOfScope(["src/api/"], { "src/api/absolute": ["symlink_target"], "src/api/escape": ["symlink_target"], "src/api/sideways": ["symlink_target"] });
  });

  it("any change by a read-only item", async () => {
    f = await fixture({ "a.txt": "a\n" });
    await f.agent.write({ "notes.md": "just looking\n" });
    await expectOutOfScope([], { "notes.md": ["read_only"] });
  });

  it("an out-of-scope change the agent committed itself", async () => {
    f = await fixture({ "mine.txt": "a\n", "theirs.txt": "b\n" });
    await f.agent.write({ "theirs.txt": "overwritten\n" });
    await f.agent.git("commit", "-qam", "sneaky");
    await expectOutOfScope(["mine.txt"], { "theirs.txt": ["outside_writes"] });
  });
});

describe("the user's checkout", () => {
  it("is byte-identical before and after a whole attempt, with staged, unstaged and untracked changes", async () => {
    const user = await createTestRepo({ "src/a.ts": "a\n", "src/b.ts": "b\n", "run.sh": "#!/bin/sh\n" });
    repos.push(user);
    await user.write({ "src/a.ts": "staged by the user\n" });
    await user.run("add", "src/a.ts");
    await user.write({ "src/a.ts": "then edited again\n", "src/b.ts": "unstaged\n", "scratch.txt": "untracked\n" });
    const mainBefore = await user.run("rev-parse", "refs/heads/main");
    const before = await snapshotCheckout(user.dir);

    const worktree = await createWorktree({ git: user.git, repoDir: user.dir, mission: "m-1", item: "api", at: "HEAD" });
    const agent = agentHands(user, worktree.path);
    await agent.write({ "src/a.ts": "agent\n", "src/new.ts": "n\n" });
    await agent.git("commit", "-qam", "agent's own commit");
    await agent.chmod("run.sh", 0o755);
    const outcome = await finishAttempt({ git: user.git, worktree, item: { id: "api", writes: paths("."), readonly: false }, protected: [], attempt: 1, agent: "a" });
    await removeWorktree({ git: user.git, repoDir: user.dir, mission: "m-1", item: "api", deleteBranch: true });

    expect(outcome).toMatchObject({ kind: "checkpointed", changed: ["run.sh", "src/a.ts", "src/new.ts"] });
    expect(await snapshotCheckout(user.dir)).toEqual(before);
    expect(await user.run("rev-parse", "refs/heads/main")).toBe(mainBefore);
  });
});
