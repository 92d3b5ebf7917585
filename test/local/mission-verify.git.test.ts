/**
 * A local mission whose queue verification fails in a batch (issue 4 "Tests"): bisection finds
 * exactly the checkpoint that breaks it, the others of the batch integrate, and the verify runs
 * are counted in the result.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { shellQuote } from "../../src/agent/shell-quote.ts";
import { missionResult } from "../../src/report/index.ts";
import { fakeAgentCommand } from "../support/agents/index.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { itemOf, missionHistory, queueCommits, queueFiles, runMission } from "./local-fixture.ts";

const GATE = fileURLToPath(new URL("./verify-gate.mjs", import.meta.url));

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

describe("queue verification in a local mission", () => {
  it("bisects a red batch down to the one checkpoint that breaks it; the rest integrate", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n" });
    repos.push(repo);
    // The culprit starts editing only once another item has a checkpoint, so it is never alone
    // in the first batch; the gate in the verify command then makes it share a batch with the
    // other two (see verify-gate.mjs). Both look into the user's repository to time themselves,
    // which the sandbox would not let them: this test of bisection runs without it.
    const inRepo = shellQuote(repo.dir);
    const afterAnother = `until git -C ${inRepo} for-each-ref refs/naruto/attempts/ | grep -q .; do sleep 0.05; done; ${fakeAgentCommand("edit")}`;
    const m = await runMission(
      repo,
      [{ id: "a" }, { id: "b" }, { id: "culprit", agent: "after-another", edits: { "src/culprit/poison.txt": "breaks the build\n" } }, { id: "d" }],
      {
        verify: `${shellQuote(process.execPath)} ${shellQuote(GATE)} ${inRepo} src/culprit/poison.txt`,
        maxAttempts: 1,
        sandbox: "none",
        agents: { "after-another": afterAnother },
      },
    );

    const culprit = itemOf(m, "culprit");
    expect(culprit.status).toBe("failed");
    expect(
      culprit.attempts.map((a) => a.status),
      culprit.reason ?? "",
    ).toEqual(["verify_failed"]);
    expect(culprit.reason).toContain("queue verification failed");
    expect(culprit.reason).toContain("src/culprit/poison.txt must not exist");
    for (const id of ["a", "b", "d"]) expect(itemOf(m, id).status).toBe("integrated");

    expect((await queueCommits(repo, m)).map((c) => c.item).sort()).toEqual(["a", "b", "d"]);
    expect(Object.keys(await queueFiles(repo, m))).not.toContain("src/culprit/poison.txt");

    // The culprit failed in the same batch (one stored step) in which others integrated.
    const history = await missionHistory(repo, m.id);
    const at = history.findIndex((v) => v.items.find((i) => i.id === "culprit")?.status === "failed");
    const before = history[at - 1];
    const after = history[at];
    if (!before || !after) throw new Error("the culprit never failed in the stored history");
    const landed = ["a", "b", "d"].filter((id) => itemOf(before, id).status !== "integrated" && itemOf(after, id).status === "integrated");
    expect(landed.length).toBeGreaterThan(0);
    // That batch took a red run and at least one more to bisect; the first batch took one.
    expect(after.queue.verify_runs - before.queue.verify_runs).toBeGreaterThanOrEqual(2);
    expect(m.queue.verify_runs).toBeGreaterThanOrEqual(3);
    expect(missionResult(m).queue.verify_runs).toBe(m.queue.verify_runs);
    expect(m.verdict?.verdict).not.toBe("approve");
  });
});
