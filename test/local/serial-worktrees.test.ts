/**
 * `git worktree …` calls of one local run go through one queue (src/local/serial-worktrees.ts):
 * concurrent `worktree add`s in one repository otherwise read each other's half-made entries.
 */
import { access, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { Git, GitCall, GitOutput } from "../../src/git/run-git.ts";
import { EMPTY_LOCK_MS, gitSubcommand, serialWorktrees, STALE_LOCK_MS, withFileLock } from "../../src/local/serial-worktrees.ts";

describe("gitSubcommand", () => {
  it.each([
    [["worktree", "add", "x"], "worktree"],
    [["-c", "core.hooksPath=/dev/null", "worktree", "add"], "worktree"],
    [["--git-dir", "/r/.git", "--no-optional-locks", "worktree", "list"], "worktree"],
    [["--no-optional-locks", "rev-parse", "HEAD"], "rev-parse"],
    [["-c", "worktree", "log"], "log"],
    [["--version"], null],
  ])("%j → %s", (args, expected) => {
    expect(gitSubcommand(args)).toBe(expected);
  });
});

/** A fake git whose calls finish when the test says so; counts how many run at once. */
function gatedGit() {
  const open: { call: GitCall; finish: (ok: boolean) => void }[] = [];
  let running = 0;
  let most = 0;
  const git: Git = (call) =>
    new Promise<GitOutput>((resolve, reject) => {
      running++;
      most = Math.max(most, running);
      open.push({
        call,
        finish: (ok) => {
          running--;
          if (ok) resolve({ code: 0, stdout: Buffer.from(call.args.join(" ")), stderr: "" });
          else reject(new Error("failed"));
        },
      });
    });
  return { git, open, most: () => most };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("serialWorktrees", () => {
  it("runs worktree calls one at a time, in order, and other calls at once", async () => {
    const fake = gatedGit();
    const git = serialWorktrees(fake.git);
    const running = () => fake.open.map((o) => o.call.args.at(-1)).sort();
    const finish = (name: string, ok: boolean) => {
      const at = fake.open.findIndex((o) => o.call.args.at(-1) === name);
      fake.open.splice(at, 1)[0]?.finish(ok);
    };
    const calls = [
      git({ args: ["worktree", "add", "a"], cwd: "/r" }),
      git({ args: ["-c", "x=y", "worktree", "add", "b"], cwd: "/r" }),
      git({ args: ["rev-parse", "HEAD"], cwd: "/r" }),
      git({ args: ["worktree", "prune"], cwd: "/r" }),
    ];
    await tick();
    expect(running()).toEqual(["HEAD", "a"]);

    finish("a", false); // a failed call does not block the queue
    await tick();
    expect(running()).toEqual(["HEAD", "b"]);
    finish("HEAD", true);
    finish("b", true);
    await tick();
    expect(running()).toEqual(["prune"]);
    finish("prune", true);

    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "fulfilled", "fulfilled", "fulfilled"]);
    expect(fake.most()).toBe(2);
  });
});

describe("withFileLock", () => {
  const folders: string[] = [];
  const folder = async () => {
    const dir = await mkdtemp(join(tmpdir(), "naruto-lock-"));
    folders.push(dir);
    return dir;
  };
  afterAll(async () => {
    for (const dir of folders) await rm(dir, { recursive: true, force: true });
  });

  it("lets one holder in at a time and removes the file afterwards", async () => {
    const lock = join(await folder(), "sub", "worktree.lock");
    const events: string[] = [];
    let release!: () => void;
    const first = withFileLock(lock, async () => {
      events.push("first in");
      await new Promise<void>((r) => (release = r));
      events.push("first out");
    });
    await vi.waitFor(() => expect(events).toEqual(["first in"]));
    const second = withFileLock(lock, async () => void events.push("second in"), { sleep: () => new Promise((r) => setTimeout(r, 1)) });
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual(["first in"]);
    expect((await readFile(lock, "utf8")).trim()).toBe(String(process.pid));
    release();
    await Promise.all([first, second]);
    expect(events).toEqual(["first in", "first out", "second in"]);
    await expect(access(lock)).rejects.toThrow();
  });

  it("takes over a lock whose process is gone", async () => {
    const lock = join(await folder(), "worktree.lock");
    await writeFile(lock, "999999\n");
    expect(await withFileLock(lock, async () => "ran", { alive: (pid) => pid !== 999999 })).toBe("ran");
  });

  it("takes over a lock older than a worktree call can take, even if its pid lives (reused)", async () => {
    const lock = join(await folder(), "worktree.lock");
    await writeFile(lock, "1\n");
    const old = new Date(Date.now() - STALE_LOCK_MS - 1000);
    await utimes(lock, old, old);
    expect(await withFileLock(lock, async () => "ran", { alive: () => true })).toBe("ran");
  });

  it("lets several waiters that find the same dead holder in one at a time", async () => {
    const lock = join(await folder(), "worktree.lock");
    for (let round = 0; round < 10; round++) {
      await writeFile(lock, "999999\n");
      let inside = 0;
      let most = 0;
      const work = async () => {
        most = Math.max(most, ++inside);
        await new Promise((r) => setTimeout(r, 2));
        inside--;
      };
      const options = { alive: (pid: number) => pid !== 999999, sleep: () => new Promise<void>((r) => setTimeout(r, 1)) };
      await Promise.all([1, 2, 3, 4].map(() => withFileLock(lock, work, options)));
      expect(most).toBe(1);
    }
  });

  it("takes over a lock left empty by a process killed between creating and writing it", async () => {
    const lock = join(await folder(), "worktree.lock");
    await writeFile(lock, "");
    const old = new Date(Date.now() - EMPTY_LOCK_MS - 1000);
    await utimes(lock, old, old);
    expect(await withFileLock(lock, async () => "ran", { alive: () => true, timeoutMs: 0 })).toBe("ran");
  });

  it("waits on a fresh empty lock: its writer is about to put its pid there", async () => {
    const lock = join(await folder(), "worktree.lock");
    await writeFile(lock, "");
    const error = await withFileLock(lock, async () => "ran", { alive: () => false, timeoutMs: 1000, sleep: async () => undefined }).catch((e: unknown) => e);
    expect(String(error)).toMatch(/held by process \? /);
    expect(await readFile(lock, "utf8")).toBe("");
  });

  it("gives up on a live holder after the timeout, naming it and what to do", async () => {
    const lock = join(await folder(), "worktree.lock");
    await writeFile(lock, "4242\n");
    const work = vi.fn(async () => "ran");
    const error = await withFileLock(lock, work, { alive: () => true, timeoutMs: 1000, sleep: async () => undefined }).catch((e: unknown) => e);
    expect(String(error)).toMatch(/held by process 4242 .*another naruto is working in this repository; if none is, delete the file/);
    expect(work).not.toHaveBeenCalled();
    expect((await readFile(lock, "utf8")).trim()).toBe("4242");
  });
});
