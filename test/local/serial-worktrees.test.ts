/**
 * `git worktree …` calls of one local run go through one queue (src/local/serial-worktrees.ts):
 * concurrent `worktree add`s in one repository otherwise read each other's half-made entries.
 */
import { describe, expect, it } from "vitest";
import type { Git, GitCall, GitOutput } from "../../src/git/run-git.ts";
import { gitSubcommand, serialWorktrees } from "../../src/local/serial-worktrees.ts";

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
