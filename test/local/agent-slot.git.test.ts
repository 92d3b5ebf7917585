/**
 * `max_parallel` is agents at once (docs/architecture.md): an attempt's slot goes to the next item when
 * its agent exits (`agent_exited`), not when naruto has checked and checkpointed what it left.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { GitCall } from "../../src/git/run-git.ts";
import { createTestRepo } from "../support/git-repo.ts";
import { runMission } from "./local-fixture.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** The work directory a git call reads (its `--work-tree`, else its folder). */
function workTreeOf(call: GitCall): string {
  const at = call.args.indexOf("--work-tree");
  return at >= 0 ? (call.args[at + 1] ?? "") : (call.cwd ?? "");
}

/** naruto's read of a finished agent's work directory (the checkpoint's first step). */
const isSnapshot = (call: GitCall) => call.args.includes("add") && call.args.includes("-A");
/** naruto's checkout of a new work directory, right before its agent starts. */
const isCheckout = (call: GitCall) => call.args.includes("read-tree");

describe("an agent slot", () => {
  it("goes to the next item while the last item's checkpoint is still being made", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    cleanups.push(() => repo.remove());
    const events: string[] = [];
    let releaseA: (by: string) => void = () => undefined;
    const aHeld = new Promise<string>((resolve) => {
      releaseA = resolve;
      // Without the slot freed at the agent's exit, b never starts while a's checkpoint waits.
      setTimeout(() => resolve("the test's timeout"), 10_000).unref();
    });
    const git = async (call: GitCall) => {
      const dir = workTreeOf(call);
      const item = /\/(a|b)\.1-[0-9a-f]+\/work$/.exec(dir)?.[1];
      if (item !== undefined && isSnapshot(call)) {
        events.push(`${item} checkpoint`);
        if (item === "a") events.push(`a released by ${await aHeld}`);
        else releaseA("b's checkpoint");
      }
      return repo.git(call);
    };
    const m = await runMission(repo, [{ id: "a" }, { id: "b" }], { maxParallel: 1 }, { git });
    expect(m.items.map((i) => i.status)).toEqual(["integrated", "integrated"]);
    // b's agent ran to its end while a's checkpoint waited.
    expect(events).toEqual(["a checkpoint", "b checkpoint", "a released by b's checkpoint"]);
    const [a, b] = m.items.map((i) => i.attempts[0]);
    expect(a?.exited_at).not.toBeNull();
    expect(Date.parse(b?.started_at ?? "")).toBeGreaterThanOrEqual(Date.parse(a?.exited_at ?? ""));
    expect(Date.parse(b?.started_at ?? "")).toBeLessThan(Date.parse(a?.finished_at ?? ""));
  }, 60_000);

  it("starts the next item before naruto checks what the last one left", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    cleanups.push(() => repo.remove());
    const order: string[] = [];
    const git = async (call: GitCall) => {
      const item = /\/(a|b)\.1-[0-9a-f]+\/work$/.exec(workTreeOf(call))?.[1];
      if (item === "a" && isSnapshot(call)) order.push("a checked");
      if (item === "b" && isCheckout(call)) {
        // A slow checkout: a's checks would run meanwhile if they did not wait for b's start.
        await new Promise((r) => setTimeout(r, 300));
        const done = await repo.git(call);
        order.push("b checked out");
        return done;
      }
      return repo.git(call);
    };
    const m = await runMission(repo, [{ id: "a" }, { id: "b" }], { maxParallel: 1 }, { git });
    expect(m.items.map((i) => i.status)).toEqual(["integrated", "integrated"]);
    expect(order).toEqual(["b checked out", "a checked"]);
  }, 60_000);

  it("stays taken while the item's own verify runs after its agent", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    cleanups.push(() => repo.remove());
    // What a's verify had printed when b's work directory was made.
    let seen: string | null = null;
    const verifyLog = async () => {
      const attempts = join(repo.dir, ".git", "naruto", "attempts");
      const [mission] = await readdir(attempts);
      return readFile(join(attempts, mission ?? "", "a", "1", "verify-output.log"), "utf8").catch(() => "(none)");
    };
    const git = async (call: GitCall) => {
      if (isCheckout(call) && /\/b\.1-[0-9a-f]+\/work$/.test(workTreeOf(call))) seen = await verifyLog();
      return repo.git(call);
    };
    const m = await runMission(repo, [{ id: "a", verify: "sleep 0.5 && echo a-verified" }, { id: "b" }], { maxParallel: 1 }, { git });
    expect(m.items.map((i) => i.status)).toEqual(["integrated", "integrated"]);
    expect(seen).toContain("a-verified");
  }, 60_000);
});
