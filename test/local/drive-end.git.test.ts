/**
 * When a local mission's drive ends: as soon as its last task has (the report written, the last
 * work directory deleted), not at the clock's next tick. The clock here ticks once an hour, so a
 * drive that waited for a tick would never end within the test.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runLocalMission } from "../../src/local/local-mission.ts";
import { createTestRepo } from "../support/git-repo.ts";
import { fakeConfig, localDeps, planText } from "./local-fixture.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe("the end of a local drive", () => {
  it("comes with its last task, without waiting for the clock", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    cleanups.push(() => repo.remove());
    const m = await runLocalMission(localDeps(repo, { tickMs: 3_600_000 }), {
      repoDir: repo.dir,
      planText: planText([{ id: "a" }, { id: "b" }, { id: "c", after: ["a"] }]),
      task: null,
      baseRef: "HEAD",
      agentCommand: null,
      parallel: 2,
      verify: null,
      strict: false,
      config: fakeConfig(),
    });
    expect(m.status).toBe("done");
    expect(m.items.map((i) => i.status)).toEqual(["integrated", "integrated", "integrated"]);
  }, 60_000);
});
