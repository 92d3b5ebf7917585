/**
 * The one checkpoint of an attempt (checkpoint.ts), from a real work directory of a real
 * repository: what it holds, who it is by, what leaves no checkpoint, and that the user's
 * checkout is never touched.
 */
import { afterEach, describe, expect, it } from "vitest";
import { normalizePath, type RepoPath } from "../plan/index.ts";
import { createWorkerFixture, snapshotCheckout, type WorkerFixture } from "../../test/support/worker-fixture.ts";
import { checkpointWorkDir, type CheckpointOptions, type CheckpointOutcome } from "./checkpoint.ts";

function paths(...written: string[]): RepoPath[] {
  return written.map((w) => {
    const n = normalizePath(w);
    if (!n.ok) throw new Error(n.message);
    return n.value;
  });
}

const PROTECTED = paths(".github/workflows/", ".github/naruto.yml");
let f: WorkerFixture;
afterEach(() => f.remove());

function finish(writes: string[], extra: Partial<CheckpointOptions> = {}): Promise<CheckpointOutcome> {
  return checkpointWorkDir({
    git: f.repo.git,
    repoDir: f.repo.dir,
    workDir: f.workDir,
    mission: "m-test",
    item: { id: "item", title: "Validate users input", writes: paths(...writes), readonly: writes.length === 0 },
    protected: PROTECTED,
    attempt: 3,
    agent: "claude",
    ...extra,
  });
}

function commitOf(outcome: CheckpointOutcome): string {
  if (outcome.kind !== "checkpointed") throw new Error(`expected a checkpoint, got ${JSON.stringify(outcome)}`);
  return outcome.commit;
}

describe("checkpointWorkDir: the checkpoint", () => {
  it("is one commit on the worker branch, parent = start, with title, body, trailers and the default author", async () => {
    f = await createWorkerFixture({ "src/api/users.ts": "old\n" });
    await f.agent.write({ "src/api/users.ts": "new\n" });
    const outcome = await finish(["src/api/"], { summary: "Added validation." });
    const commit = commitOf(outcome);
    const start = f.workDir.start;

    expect(outcome).toMatchObject({ base: start, branch: "refs/heads/naruto/m-test--item", changed: ["src/api/users.ts"] });
    expect(await f.repo.run("rev-parse", "refs/heads/naruto/m-test--item")).toBe(commit);
    expect(await f.repo.run("rev-parse", `${commit}^@`)).toBe(start);
    expect(await f.repo.run("log", "-1", "--format=%an <%ae>|%cn <%ce>", commit)).toBe(
      "naruto <naruto@users.noreply.github.com>|naruto <naruto@users.noreply.github.com>",
    );
    expect(await f.repo.run("log", "-1", "--format=%B", commit)).toBe(
      "Validate users input\n\nAdded validation.\n\nNaruto-Mission: m-test\nNaruto-Item: item\nNaruto-Attempt: 3\nNaruto-Agent: claude\n",
    );
    expect(await f.repo.run("diff", "--name-only", `${commit}^`, commit)).toBe("src/api/users.ts");
  });

  it("uses the configured author and date", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.write({ "a.txt": "b\n" });
    const commit = commitOf(await finish(["a.txt"], { author: { name: "Bot", email: "bot@example.test" }, date: new Date("2026-02-03T04:05:06Z") }));
    expect(await f.repo.run("log", "-1", "--format=%an <%ae> %aI|%cn %cI", commit)).toBe(
      "Bot <bot@example.test> 2026-02-03T04:05:06+00:00|Bot 2026-02-03T04:05:06+00:00",
    );
  });

  it("is the commit git commit-tree writes, byte for byte (naruto writes it without starting git)", async () => {
    f = await createWorkerFixture({ "src/api/users.ts": "old\n" });
    await f.agent.write({ "src/api/users.ts": "new\n" });
    const date = new Date("2026-03-01T12:00:00Z");
    const commit = commitOf(await finish(["src/api/"], { summary: "Added validation.", author: { name: "Ada L", email: "ada@example.com" }, date }));
    const show = async (id: string) => (await f.repo.git({ args: ["cat-file", "commit", id], cwd: f.repo.dir })).stdout.toString();
    const written = await show(commit);
    const tree = await f.repo.run("rev-parse", `${commit}^{tree}`);
    const stamp = `${date.getTime() / 1000} +0000`;
    const env = {
      GIT_AUTHOR_NAME: "Ada L",
      GIT_AUTHOR_EMAIL: "ada@example.com",
      GIT_COMMITTER_NAME: "Ada L",
      GIT_COMMITTER_EMAIL: "ada@example.com",
      GIT_AUTHOR_DATE: stamp,
      GIT_COMMITTER_DATE: stamp,
    };
    const message = written.slice(written.indexOf("\n\n") + 2);
    const byGit = await f.repo.git({ args: ["commit-tree", "--no-gpg-sign", "-p", f.workDir.start, tree], cwd: f.repo.dir, input: message, env });
    expect(message).toBe("Validate users input\n\nAdded validation.\n\nNaruto-Mission: m-test\nNaruto-Item: item\nNaruto-Attempt: 3\nNaruto-Agent: claude\n");
    expect(byGit.stdout.toString().trim()).toBe(commit);
  });

  it("holds exactly what the agent left: committed, staged, unstaged and untracked, ignored files excepted", async () => {
    f = await createWorkerFixture({ ".gitignore": "*.log\n", "src/a.ts": "a\n", "src/b.ts": "b\n" });
    await f.agent.write({ "src/a.ts": "committed\n" });
    await f.agent.git("commit", "-qam", "wip");
    await f.agent.write({ "src/b.ts": "unstaged\n", "src/c.ts": "untracked\n", "src/debug.log": "ignored\n" });
    const commit = commitOf(await finish(["src/"]));
    expect(await f.repo.run("ls-tree", "-r", "--name-only", commit)).toBe(".gitignore\nsrc/a.ts\nsrc/b.ts\nsrc/c.ts");
    expect(await f.repo.run("show", `${commit}:src/b.ts`)).toBe("unstaged");
  });

  it("is made for a mode change alone (no threshold)", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.chmod("a.txt", 0o755);
    expect(await finish(["a.txt"])).toMatchObject({ kind: "checkpointed", changed: ["a.txt"] });
  });

  it("is not made when nothing changed (no_changes), even after commits that cancel out", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    expect(await finish(["a.txt"])).toMatchObject({ kind: "no_changes", base: f.workDir.start });
    await f.agent.write({ "a.txt": "b\n" });
    await f.agent.git("commit", "-qam", "change");
    await f.agent.git("revert", "--no-edit", "HEAD");
    expect(await finish(["a.txt"])).toMatchObject({ kind: "no_changes", base: f.workDir.start });
  });

  it("does not care what the agent did to its own repository: reset, branches, tags, a deleted .git", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.write({ "a.txt": "kept\n" });
    await f.agent.git("commit", "-qam", "mine");
    await f.agent.git("branch", "elsewhere");
    await f.agent.git("tag", "v9");
    await f.agent.git("checkout", "-q", "-b", "other");
    const commit = commitOf(await finish(["a.txt"]));
    expect(await f.repo.run("show", `${commit}:a.txt`)).toBe("kept");
    // None of it reached the repository.
    expect(await f.repo.run("for-each-ref", "--format=%(refname)")).toBe("refs/heads/main\nrefs/heads/naruto/m-test--item");
    await f.agent.remove(".git");
    await f.agent.write({ "a.txt": "without git\n" });
    expect(await f.repo.run("show", `${commitOf(await finish(["a.txt"]))}:a.txt`)).toBe("without git");
  });
});

describe("checkpointWorkDir: out of scope leaves no checkpoint", () => {
  async function expectOutOfScope(writes: string[], rules: Record<string, string[]>): Promise<void> {
    const outcome = await finish(writes);
    if (outcome.kind !== "out_of_scope") throw new Error(`expected out_of_scope, got ${outcome.kind}`);
    const got: Record<string, string[]> = {};
    for (const v of outcome.violations) (got[v.path] ??= []).push(v.rule);
    expect(got).toEqual(rules);
    expect(await f.repo.run("log", "--all", "--format=%H", "--grep=^Naruto-Mission:")).toBe("");
    expect(await f.repo.run("for-each-ref", "--format=%(refname)", "refs/heads/naruto/")).toBe("");
  }

  it("a file outside the writes", async () => {
    f = await createWorkerFixture({ "src/api/a.ts": "a\n", "src/lib/b.ts": "b\n" });
    await f.agent.write({ "src/api/a.ts": "ok\n", "src/lib/b.ts": "not mine\n" });
    await expectOutOfScope(["src/api/"], { "src/lib/b.ts": ["outside_writes"] });
  });

  it("a rename out of the writes (both sides are judged)", async () => {
    f = await createWorkerFixture({ "src/api/a.ts": "line\n".repeat(10) });
    await f.agent.rename("src/api/a.ts", "src/lib/a.ts");
    await expectOutOfScope(["src/api/"], { "src/lib/a.ts": ["outside_writes"] });
  });

  it("a protected path", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.write({ ".github/workflows/ci.yml": "on: push\n" });
    await expectOutOfScope(["."], { ".github/workflows/ci.yml": ["protected"] });
  });

  it("a symlink pointing outside the writes or the repository", async () => {
    f = await createWorkerFixture({ "src/api/a.ts": "a\n" });
    await f.agent.symlink("../../../../etc/passwd", "src/api/escape");
    await f.agent.symlink("/etc/passwd", "src/api/absolute");
    await f.agent.symlink("../lib/secret.ts", "src/api/sideways");
    await f.agent.symlink("a.ts", "src/api/fine");
    await expectOutOfScope(["src/api/"], {
      "src/api/absolute": ["symlink_target"],
      "src/api/escape": ["symlink_target"],
      "src/api/sideways": ["symlink_target"],
    });
  });

  it("any change by a read-only item", async () => {
    f = await createWorkerFixture({ "a.txt": "a\n" });
    await f.agent.write({ "notes.md": "just looking\n" });
    await expectOutOfScope([], { "notes.md": ["read_only"] });
  });

  it("an out-of-scope change the agent committed itself", async () => {
    f = await createWorkerFixture({ "mine.txt": "a\n", "theirs.txt": "b\n" });
    await f.agent.write({ "theirs.txt": "overwritten\n" });
    await f.agent.git("commit", "-qam", "sneaky");
    await expectOutOfScope(["mine.txt"], { "theirs.txt": ["outside_writes"] });
  });
});

describe("the user's checkout", () => {
  it("is byte-identical before and after a whole attempt, with staged, unstaged and untracked changes", async () => {
    f = await createWorkerFixture({ "src/a.ts": "a\n", "src/b.ts": "b\n", "run.sh": "#!/bin/sh\n" });
    const user = f.repo;
    await user.write({ "src/a.ts": "staged by the user\n" });
    await user.run("add", "src/a.ts");
    await user.write({ "src/a.ts": "then edited again\n", "src/b.ts": "unstaged\n", "scratch.txt": "untracked\n" });
    const mainBefore = await user.run("rev-parse", "refs/heads/main");
    const before = await snapshotCheckout(user.dir);

    await f.agent.write({ "src/a.ts": "agent\n", "src/new.ts": "n\n" });
    await f.agent.git("commit", "-qam", "agent's own commit");
    await f.agent.chmod("run.sh", 0o755);
    const outcome = await finish(["."]);

    expect(outcome).toMatchObject({ kind: "checkpointed", changed: ["run.sh", "src/a.ts", "src/new.ts"] });
    expect(await snapshotCheckout(user.dir)).toEqual(before);
    expect(await user.run("rev-parse", "refs/heads/main")).toBe(mainBefore);
    expect((await user.run("worktree", "list", "--porcelain")).split("\n").filter((l) => l.startsWith("worktree "))).toHaveLength(1);
  });
});
