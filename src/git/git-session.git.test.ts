/**
 * Ref writes, object reads and change reads through long-running git processes (git-session.ts,
 * ref-sessions.ts, cat-file-session.ts, diff-tree-session.ts): the same answers as a process per
 * call (a compare-and-swap that loses fails with git's message, a create over an existing ref is
 * refused, an object written since is read), far fewer processes, and nothing left running.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { readObjects } from "./cat-file-session.ts";
import { diffTreeAnswered, diffTrees } from "./diff-tree-session.ts";
import { refUpdate, updateRefs, type RefLine } from "./ref-sessions.ts";
import { createGit, GitError, type Git } from "./run-git.ts";

/** A ref write as the named operation makes it (reflog message `m`). */
const write = (lines: RefLine[], message = "m") => updateRefs(repo.dir, lines, { message });

let repo: TestRepo;
let head: string;
let second: string;
beforeAll(async () => {
  repo = await createTestRepo({ "a.txt": "a\n" });
  head = await repo.run("rev-parse", "HEAD");
  await repo.run("commit", "--allow-empty", "-q", "-m", "second");
  second = await repo.run("rev-parse", "HEAD");
});
afterAll(async () => repo.remove());

function counted(): { git: Git; spawned: string[][] } {
  const spawned: string[][] = [];
  return { git: createGit({ env: { PATH: process.env.PATH }, onSpawn: (args) => spawned.push([...args]) }), spawned };
}

const refOf = (name: string) => repo.run("for-each-ref", "--format=%(objectname)", name);

describe("ref writes through a long-running process", () => {
  it("writes many refs, one transaction each, with one process", async () => {
    const { git, spawned } = counted();
    for (let i = 0; i < 12; i++) await git(write([refUpdate(`refs/naruto/s/one-${i}`, head, null)], "naruto: test"));
    await git(
      write(
        [
          refUpdate("refs/naruto/s/one-0", second, head),
          { verb: "delete", ref: "refs/naruto/s/one-1", expected: head },
          refUpdate("refs/heads/s-logged", head, null),
        ],
        "naruto: test",
      ),
    );
    await git(write([refUpdate("refs/heads/s-logged", second, head)], "naruto: test"));
    expect(spawned).toEqual([["update-ref", "-m", "naruto: test", "--stdin"]]);
    expect(await refOf("refs/naruto/s/one-0")).toBe(second);
    expect(await refOf("refs/naruto/s/one-1")).toBe("");
    expect(await refOf("refs/naruto/s/one-11")).toBe(head);
    // The reflog says what the one-shot command would have said.
    expect(await repo.run("reflog", "show", "--format=%gs", "refs/heads/s-logged")).toBe("naruto: test\nnaruto: test");
  });

  it("fails a lost compare-and-swap as the one-shot command does, and the next write still works", async () => {
    const { git, spawned } = counted();
    await git(write([refUpdate("refs/naruto/s/cas", head, null)]));
    // Moved by someone else since.
    await repo.run("update-ref", "refs/naruto/s/cas", second);
    const lost = await git(write([refUpdate("refs/naruto/s/cas", head, head)])).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(GitError);
    expect((lost as GitError).stderr).toMatch(/cannot lock ref 'refs\/naruto\/s\/cas'/);
    expect((lost as GitError).args).toEqual(["update-ref", "-m", "m", "--stdin"]);
    const exists = await git(write([refUpdate("refs/naruto/s/cas", head, null)])).catch((e: unknown) => e);
    expect(exists).toBeInstanceOf(GitError);
    expect(await refOf("refs/naruto/s/cas")).toBe(second);
    await git(write([refUpdate("refs/naruto/s/cas", head, second)]));
    expect(await refOf("refs/naruto/s/cas")).toBe(head);
    // A failed transaction ends its process: the next write starts another.
    expect(spawned.length).toBe(3);
  });

  it("writes a process per call with a git that has no transactions on --stdin (before 2.27)", async () => {
    // Such a git takes `--stdin` lines as one transaction per process, and refuses `start` (its
    // first line) as old git's update-ref does; everything else is the real one.
    const dir = await mkdtemp(join(tmpdir(), "naruto-old-git-"));
    const old = join(dir, "git");
    const refuseStart = `IFS= read -r first; case "$first" in start) echo "fatal: unknown command: start" >&2; exit 128;; esac; { printf '%s\\n' "$first"; cat; } | exec git "$@"`;
    await writeFile(old, `#!/bin/sh\ncase " $* " in *" update-ref "*" --stdin "*) ${refuseStart};; esac\nexec git "$@"\n`, { mode: 0o755 });
    try {
      const spawned: string[][] = [];
      const git = createGit({ env: { PATH: process.env.PATH }, binary: old, onSpawn: (args) => spawned.push([...args]) });
      await git(write([refUpdate("refs/naruto/s/old-1", head, null)]));
      await git(write([refUpdate("refs/naruto/s/old-2", head, null)]));
      expect(await refOf("refs/naruto/s/old-1")).toBe(head);
      expect(await refOf("refs/naruto/s/old-2")).toBe(head);
      // One try of a session, then a process per call.
      expect(spawned).toEqual([
        ["update-ref", "-m", "m", "--stdin"],
        ["update-ref", "-m", "m", "--stdin"],
        ["update-ref", "-m", "m", "--stdin"],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("applies a transaction whole or not at all", async () => {
    const { git } = counted();
    await git(write([refUpdate("refs/naruto/s/t1", head, null)]));
    const failed = await git(
      write([
        refUpdate("refs/naruto/s/t1", second),
        refUpdate("refs/naruto/s/t1-new", head, null),
        { verb: "verify", ref: "refs/naruto/s/t1", expected: second },
      ]),
    ).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(GitError);
    expect(await refOf("refs/naruto/s/t1")).toBe(head);
    expect(await refOf("refs/naruto/s/t1-new")).toBe("");
  });

  it("serialises concurrent writes and runs other calls as they are", async () => {
    const { git, spawned } = counted();
    await Promise.all(Array.from({ length: 20 }, (_, i) => git(write([refUpdate(`refs/naruto/s/c-${i}`, head, null)], "c"))));
    const listed = await git({ args: ["for-each-ref", "--format=%(refname)", "refs/naruto/s/"], cwd: repo.dir });
    expect(
      listed.stdout
        .toString()
        .split("\n")
        .filter((r) => r.startsWith("refs/naruto/s/c-")).length,
    ).toBe(20);
    expect(spawned.map((a) => a.find((x) => !x.startsWith("-")))).toEqual(["update-ref", "for-each-ref"]);
  });

  it("leaves nothing running: a program that wrote refs exits at once", async () => {
    const script = `
      const { createGit } = await import(${JSON.stringify(new URL("./run-git.ts", import.meta.url).pathname)});
      const { updateRefs } = await import(${JSON.stringify(new URL("./ref-sessions.ts", import.meta.url).pathname)});
      const git = createGit({ env: { PATH: process.env.PATH } });
      const before = process.getActiveResourcesInfo().sort().join();
      await git(updateRefs(${JSON.stringify(repo.dir)}, [{ verb: "create", ref: "refs/naruto/s/exit", next: ${JSON.stringify(head)} }], { message: "x" }));
      // What would keep it running: the same as before it wrote (no pipe, no process of git's).
      console.log(process.getActiveResourcesInfo().sort().join() === before ? "wrote" : "held: " + process.getActiveResourcesInfo().join());`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(out.trim()).toBe("wrote");
    expect(code).toBe(0);
    expect(await refOf("refs/naruto/s/exit")).toBe(head);
  });
});

describe("object reads through a long-running process", () => {
  const read = (git: Git, ids: readonly string[]) => git(readObjects(repo.dir, ids));

  it("answers what a process per read answers, objects written since included, with one process", async () => {
    const { git, spawned } = counted();
    const plain = createGit({ env: { PATH: process.env.PATH }, sessions: false });
    const binary = Buffer.from([0, 10, 255, 10, 10, 0x23, 0]);
    const blob = (await repo.git({ args: ["hash-object", "-w", "--stdin"], cwd: repo.dir, input: binary })).stdout.toString().trim();
    const absent = "0123456789".repeat(4);
    const ids = [head, blob, absent, second, blob];
    expect((await read(git, ids)).stdout).toEqual((await read(plain, ids)).stdout);
    // Written after the process started: a loose object, and a pack of fast-import's.
    const later = (await repo.git({ args: ["hash-object", "-w", "--stdin"], cwd: repo.dir, input: "later\n" })).stdout.toString().trim();
    await repo.git({ args: ["fast-import", "--quiet"], cwd: repo.dir, input: "blob\nmark :1\ndata 7\npacked\n\n" });
    const packed = (await repo.git({ args: ["hash-object", "--stdin"], cwd: repo.dir, input: "packed\n" })).stdout.toString().trim();
    const out = (await read(git, [later, packed])).stdout.toString();
    expect(out).toBe(`${later} blob 6\nlater\n\n${packed} blob 7\npacked\n\n`);
    expect(spawned.filter((a) => a.includes("cat-file"))).toEqual([["--no-optional-locks", "cat-file", "--batch"]]);
  });

  it("serves reads asked for at once, each its own answer", async () => {
    const { git } = counted();
    const answers = await Promise.all([[head], [second, head], [head, "f".repeat(40)]].map((ids) => read(git, ids)));
    expect(
      answers.map((a) =>
        a.stdout
          .toString()
          .split("\n")
          .filter((l) => /^[0-9a-f]{40} (commit|missing)/.test(l))
          .map((l) => l.split(" ")[1]),
      ),
    ).toEqual([["commit"], ["commit", "commit"], ["commit", "missing"]]);
  });
});

describe("change reads through a long-running process", () => {
  const read = (git: Git, pairs: readonly (readonly [string, string])[]) => git(diffTrees(repo.dir, pairs));

  it("answers what a process per batch answers, commits written since and paths like its end line included, with one process", async () => {
    const { git, spawned } = counted();
    const plain = createGit({ env: { PATH: process.env.PATH }, sessions: false });
    // Paths an agent could name: a newline in one, and one that looks like the line that ends a request.
    const changed = await repo.commit("odd paths", { "new\nline.txt": "x\n", "naruto-end-0123": "y\n", "a.txt": "changed\n" });
    const absent = "0123456789".repeat(4);
    const pairs = [
      [changed, second],
      [second, head],
      [absent, head],
      [changed, head],
    ] as const;
    const answer = (await read(git, pairs)).stdout;
    expect(answer).toEqual((await read(plain, pairs)).stdout);
    expect(answer.toString("latin1")).toContain("new\nline.txt\0");
    // Nothing changed: an empty answer, not a wait; nor for a pair of trees, whose header ends in a newline.
    expect((await read(git, [[second, head]])).stdout.length).toBe(0);
    const tree = await repo.run("rev-parse", `${head}^{tree}`);
    expect((await read(git, [[tree, tree]])).stdout.toString()).toBe(`${tree} ${tree}\n`);
    // Written after the process started, in a pack of fast-import's.
    await repo.git({
      args: ["fast-import", "--quiet"],
      cwd: repo.dir,
      input: `commit refs/naruto/s/later\ncommitter t <t@x> 0 +0000\ndata 2\nl\nfrom ${changed}\nM 100644 inline later.txt\ndata 2\nz\n\n`,
    });
    const later = await repo.run("rev-parse", "refs/naruto/s/later");
    expect((await read(git, [[later, changed]])).stdout).toEqual((await read(plain, [[later, changed]])).stdout);
    expect(spawned.filter((a) => a.includes("diff-tree"))).toEqual([diffTrees(repo.dir, []).args]);
  });

  it("serves reads asked for at once, each its own answer", async () => {
    const { git } = counted();
    const plain = createGit({ env: { PATH: process.env.PATH }, sessions: false });
    const asks = [
      [[second, head]],
      [[head, second]],
      [
        [second, head],
        [head, second],
      ],
    ] as const;
    const answers = await Promise.all(asks.map((pairs) => read(git, pairs)));
    for (const [i, pairs] of asks.entries()) expect(answers[i]?.stdout).toEqual((await read(plain, pairs)).stdout);
  });
});

describe("which calls go to a long-running process", () => {
  it("finds a diff-tree answer's end only at its own end line, alone or after a NUL or a newline", () => {
    const answered = diffTreeAnswered("naruto-end-ab");
    expect(answered(Buffer.from("naruto-end-ab\n"))).toBe(14);
    const whole = Buffer.from("c\0:1 2 A\0p\0naruto-end-ab\n");
    expect(answered(whole)).toBe(whole.length);
    expect(answered(Buffer.from("c\0:1 2 A\0p\0naruto-end-a"))).toBeNull();
    const trees = Buffer.from("t1 t2\nnaruto-end-ab\n");
    expect(answered(trees)).toBe(trees.length);
    expect(answered(Buffer.from("c\0:1 2 A\0xnaruto-end-ab\n"))).toBeNull();
  });

  it("only those the operation sends there: a call that spells the same arguments runs as it is", async () => {
    const { git, spawned } = counted();
    const call = readObjects(repo.dir, [head]);
    const { session: _, ...plain } = call;
    await git(plain);
    await git(plain);
    await git(call);
    await git(call);
    // Two processes for the plain calls, one long-running for the operation's.
    expect(spawned).toEqual([call.args, call.args, call.args]);
  });

  it("writes ref lines as git reads them, and refuses what is not a ref or an object id", () => {
    const oid = "a".repeat(40);
    const other = "b".repeat(40);
    const lines = (l: RefLine[]) => updateRefs("/r", l).input;
    expect(lines([refUpdate("refs/x", oid)])).toBe(`update refs/x ${oid}\n`);
    expect(lines([refUpdate("refs/x", oid, null)])).toBe(`create refs/x ${oid}\n`);
    expect(lines([refUpdate("refs/x", oid, other), { verb: "delete", ref: "refs/y" }, { verb: "delete", ref: "refs/z", expected: oid }])).toBe(
      `update refs/x ${oid} ${other}\ndelete refs/y\ndelete refs/z ${oid}\n`,
    );
    expect(updateRefs("/r", [refUpdate("refs/x", oid)], { message: "m", config: ["core.hooksPath=/dev/null"] }).args).toEqual([
      "-c",
      "core.hooksPath=/dev/null",
      "update-ref",
      "-m",
      "m",
      "--stdin",
    ]);
    expect(() => lines([refUpdate("refs/x", "HEAD")])).toThrow(RangeError);
    expect(() => lines([refUpdate("-refs/x", oid)])).toThrow(RangeError);
    expect(() => lines([refUpdate("refs/x y", oid)])).toThrow(RangeError);
  });
});
