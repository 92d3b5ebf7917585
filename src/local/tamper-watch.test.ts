/**
 * The tamper watch (tamper-watch.ts) on a real repository: naruto's own ref writes pass, anything
 * else moving naruto's refs is named and put back, a `naruto cancel` from another process is
 * recognised, and the user's changes are blamed on agents only when they ran unsandboxed.
 */
import { appendFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { createLocalMissionStore } from "../store/index.ts";
import { applyEvent } from "../mission/index.ts";
import { item, planned, requested } from "../../test/support/mission-builders.ts";
import { createTamperWatch, refWriteOf, refWritesOf } from "./tamper-watch.ts";

let repo: TestRepo;
afterEach(() => repo?.remove());

/** Mission m-test1's tamper watch on `repo`, its git calls made through `git`. */
function watchWith(git: TestRepo["git"], sandboxed: boolean) {
  return createTamperWatch({
    git,
    repoDir: repo.dir,
    commonDir: `${repo.dir}/.git`,
    mission: "m-test1",
    home: null,
    sandboxed,
    now: () => new Date("2026-12-01T00:00:00Z"),
  });
}

async function watch(sandboxed: boolean) {
  repo = await createTestRepo({ "README.md": "# app\n" });
  return watchWith(repo.git, sandboxed);
}

/** A watch whose reads of the refs (`for-each-ref`) are counted from after its first record. */
async function countingWatch(sandboxed: boolean) {
  repo = await createTestRepo({ "README.md": "# app\n" });
  let reads = 0;
  const git: typeof repo.git = (call) => {
    if (call.args.includes("for-each-ref")) reads++;
    return repo.git(call);
  };
  const w = await watchWith(git, sandboxed);
  reads = 0;
  return { w, reads: () => reads };
}

describe("refWriteOf", () => {
  it.each([
    [["update-ref", "-m", "why", "refs/x", "abc", "def"], { ref: "refs/x", value: "abc" }],
    [["-c", "core.hooksPath=/dev/null", "update-ref", "refs/x", "abc"], { ref: "refs/x", value: "abc" }],
    [["update-ref", "-m", "why", "-d", "refs/x", "abc"], { ref: "refs/x", value: null }],
    [["rev-parse", "HEAD"], null],
    [["update-ref", "--stdin"], null],
  ])("%j", (args, expected) => {
    expect(refWriteOf(args)).toEqual(expected);
  });
});

describe("refWritesOf", () => {
  it("reads every ref of a --stdin transaction", () => {
    expect(
      refWritesOf({
        args: ["-c", "x=y", "update-ref", "-m", "why", "--stdin"],
        input: "update refs/a abc\ncreate refs/b def\ndelete refs/c 123\nverify refs/d 456\n",
      }),
    ).toEqual([
      { ref: "refs/a", value: "abc" },
      { ref: "refs/b", value: "def" },
      { ref: "refs/c", value: null },
    ]);
    expect(refWritesOf({ args: ["update-ref", "refs/x", "abc"] })).toEqual([{ ref: "refs/x", value: "abc" }]);
  });
});

describe("the tamper watch", () => {
  it("lets naruto's own writes pass and names, then puts back, a move by anything else", async () => {
    const w = await watch(true);
    const head = await repo.run("rev-parse", "HEAD");
    await w.git({ args: ["update-ref", "refs/heads/naruto/m-test1", head, ""], cwd: repo.dir });
    await w.git({ args: ["update-ref", "refs/heads/naruto/m-test1--a", head], cwd: repo.dir });
    expect(await w.check()).toEqual([]);

    const other = await repo.commit("elsewhere", { "x.txt": "x\n" });
    await repo.run("update-ref", "refs/heads/naruto/m-test1", other);
    await repo.run("update-ref", "refs/heads/naruto/m-test1--evil", other);
    const findings = await w.check();
    expect(findings.filter((f) => f.blame === "not_naruto").map((f) => [f.what, f.before, f.after, f.blame, f.action])).toEqual([
      ["refs/heads/naruto/m-test1", head, other, "not_naruto", `naruto put it back to ${head.slice(0, 12)}`],
      ["refs/heads/naruto/m-test1--evil", null, other, "not_naruto", "naruto deleted it again"],
    ]);
    expect(await repo.run("rev-parse", "refs/heads/naruto/m-test1")).toBe(head);
    expect(await repo.run("for-each-ref", "refs/heads/naruto/m-test1--evil")).toBe("");
    // main moved with the commit above: with the sandbox on, the user's own change, compared
    // when everything is (before the review), not after each attempt.
    expect(findings.find((f) => f.what === "refs/heads/main")).toBeUndefined();
    const all = await w.check({ everything: true });
    expect(all.map((f) => [f.what, f.blame, f.action])).toEqual([["refs/heads/main", "user", null]]);
    expect(await w.check({ everything: true })).toEqual([]);
  });

  it("still names a change an agent made while naruto put its ref back (it is not folded into the next comparison's start)", async () => {
    repo = await createTestRepo({ "README.md": "# app\n" });
    const config = `${repo.dir}/.git/config`;
    // An agent still running (b#1) changes the config right as naruto puts its queue back.
    const git: typeof repo.git = async (call) => {
      if (call.args.includes("naruto: put back (tampered)")) await appendFile(config, "[alias]\n\tst = !echo pwned\n");
      return repo.git(call);
    };
    const w = await watchWith(git, false);
    const head = await repo.run("rev-parse", "HEAD");
    await w.git({ args: ["update-ref", "refs/heads/naruto/m-test1", head, ""], cwd: repo.dir });
    w.attemptStarted("a#1");
    w.attemptStarted("b#1");
    const other = await repo.commit("elsewhere", { "x.txt": "x\n" });
    await repo.run("update-ref", "refs/heads/naruto/m-test1", other);
    w.attemptEnded("a#1");
    const first = await w.check();
    expect(first.find((f) => f.what === "refs/heads/naruto/m-test1")?.action).toBe(`naruto put it back to ${head.slice(0, 12)}`);
    const findings = [...first, ...(await w.check())];
    expect(findings.filter((f) => f.what === ".git/config").map((f) => [f.blame, f.attempts])).toEqual([["agents", ["b#1"]]]);
  });

  it("shares one check among those asked for while it waits its turn, and still sees what changed before each", async () => {
    const { w, reads } = await countingWatch(false);
    const first = w.check();
    await repo.run("update-ref", "refs/heads/elsewhere", "HEAD");
    const [second, third] = [w.check(), w.check()];
    const found = await Promise.all([first, second, third]);
    expect(reads()).toBe(2);
    expect(found[2]).toBe(found[1]);
    // The change made after the first check was asked for is in the shared one (or the first).
    expect(found.flat().some((f) => f.what === "refs/heads/elsewhere")).toBe(true);
  });

  it("checks before an integration only for an attempt that ended since the last check", async () => {
    const { w, reads } = await countingWatch(false);
    // Nothing ended since the record was taken: nothing to read.
    expect(await w.checkEnded()).toEqual([]);
    w.attemptStarted("a#1");
    expect(await w.checkEnded()).toEqual([]);
    expect(reads()).toBe(0);
    await repo.commit("by a#1", { "y.txt": "y\n" });
    w.attemptEnded("a#1");
    // It ended and was not compared since: the check reads and finds what it did, as `check` would.
    const [main] = (await w.checkEnded()).filter((f) => f.what === "refs/heads/main");
    expect(main).toMatchObject({ blame: "agents", attempts: ["a#1"] });
    expect(reads()).toBe(1);
    // Compared since: the next integration reads nothing.
    expect(await w.checkEnded()).toEqual([]);
    expect(reads()).toBe(1);
    // An attempt's own check that waits its turn is shared, not skipped.
    w.attemptStarted("b#1");
    w.attemptEnded("b#1");
    const [own, before] = [w.check(), w.checkEnded()];
    expect(await before).toBe(await own);
    expect(reads()).toBe(2);
  });

  it("blames the attempts that ran when agents run unsandboxed, and the user when they cannot reach the repository", async () => {
    for (const sandboxed of [false, true]) {
      const w = await watch(sandboxed);
      w.attemptStarted("a#1");
      w.attemptStarted("b#1");
      w.attemptEnded("b#1");
      await repo.commit("by someone", { "y.txt": "y\n" });
      const [main] = (await w.check({ everything: sandboxed })).filter((f) => f.what === "refs/heads/main");
      expect(main).toMatchObject(sandboxed ? { blame: "user", attempts: [] } : { blame: "agents", attempts: ["a#1", "b#1"] });
      await repo.remove();
    }
    repo = await createTestRepo();
  });

  it("takes a cancel another process saved on top of naruto's state, and puts back a state it did not write", async () => {
    const w = await watch(true);
    const mine = createLocalMissionStore({ git: w.git, repoDir: repo.dir });
    await applyEvent(mine, "m-test1", requested());
    await applyEvent(mine, "m-test1", planned([item("a")]));
    const theirs = createLocalMissionStore({ git: repo.git, repoDir: repo.dir });
    await applyEvent(theirs, "m-test1", { type: "cancelled", at: "2026-12-01T00:00:00Z", by: "someone" });
    expect(await w.check()).toEqual([]);

    const cancelled = await repo.run("rev-parse", "refs/naruto/missions/m-test1");
    const forged = await repo.run("rev-parse", "refs/naruto/missions/m-test1^");
    await repo.run("update-ref", "refs/naruto/missions/m-test1", forged);
    const [finding] = await w.check();
    expect(finding).toMatchObject({ what: "refs/naruto/missions/m-test1", before: cancelled, after: forged, blame: "not_naruto" });
    expect(await repo.run("rev-parse", "refs/naruto/missions/m-test1")).toBe(cancelled);
  });

  it("with the sandbox, reads after an attempt only the mission's refs, however many other missions left", async () => {
    repo = await createTestRepo({ "README.md": "# app\n" });
    const head = await repo.run("rev-parse", "HEAD");
    // What 200 earlier missions of 5 items left, next to this mission's own refs and the user's.
    const earlier = Array.from({ length: 200 }, (_, m) => [
      `refs/naruto/missions/m-old${m}`,
      `refs/heads/naruto/m-old${m}`,
      ...Array.from({ length: 5 }, (_, i) => [`refs/heads/naruto/m-old${m}--i${i}`, `refs/naruto/attempts/m-old${m}/i${i}/1`]).flat(),
    ]).flat();
    const mine = [
      "refs/heads/naruto/m-test1",
      "refs/heads/naruto/m-test1--a",
      "refs/heads/naruto/m-test1--b/deep",
      "refs/naruto/attempts/m-test1/a/1",
      "refs/naruto/missions/m-test1",
    ];
    await repo.git({
      args: ["update-ref", "--stdin"],
      cwd: repo.dir,
      input: [...earlier, ...mine, "refs/heads/naruto/m-test10", "refs/tags/v1"].map((r) => `create ${r} ${head}\n`).join(""),
    });
    await repo.run("pack-refs", "--all");
    const lines: number[] = [];
    const git: typeof repo.git = async (call) => {
      const result = await repo.git(call);
      if (call.args.includes("for-each-ref")) lines.push(result.stdout.toString().split("\n").filter(Boolean).length);
      return result;
    };
    const w = await watchWith(git, true);
    expect(lines).toEqual([earlier.length + mine.length + 3]); // and main, v1 and m-test10
    await repo.run("update-ref", "refs/heads/naruto/m-test1--b/deep", "refs/heads/main~0");
    await repo.commit("the user's own", { "y.txt": "y\n" });
    await repo.run("update-ref", "refs/heads/naruto/m-test1--b/deep", head);
    await repo.run("update-ref", "-d", "refs/naruto/attempts/m-test1/a/1");
    const after = await w.check();
    // The mission's refs only, once (one deleted): naruto's refs as put back are the ledger's.
    expect(lines.slice(1)).toEqual([mine.length - 1]);
    expect(after.map((f) => [f.what, f.blame])).toEqual([["refs/naruto/attempts/m-test1/a/1", "not_naruto"]]);
    // Put back: naruto never wrote the deletion.
    expect(await repo.run("rev-parse", "refs/naruto/attempts/m-test1/a/1")).toBe(head);
    const all = await w.check({ everything: true });
    expect(all.map((f) => [f.what, f.blame])).toEqual([["refs/heads/main", "user"]]);
  });

  it("does not fold a check of everything into a narrower one waiting its turn", async () => {
    const { w, reads } = await countingWatch(true);
    await repo.commit("the user's own", { "y.txt": "y\n" });
    const [first, second, everything] = [w.check(), w.check(), w.check({ everything: true })];
    // The narrower one does not compare the user's refs; the one of everything does, on its own.
    expect(await first).toEqual([]);
    expect(await second).toBe(await first);
    expect((await everything).map((f) => f.what)).toEqual(["refs/heads/main"]);
    expect(reads()).toBe(2);
  });
});
