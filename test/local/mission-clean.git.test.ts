/**
 * A whole local mission that goes well (issue 4 "Tests"): every item integrated, the queue
 * holds each change as one commit with its trailers, a dependent starts from code holding its
 * dependency, the arbiter approves, and the §13 result says exactly that.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { workRepo } from "../../src/sandbox/work-root.ts";
import { TEST_CACHE } from "./cli-io.ts";
import { afterEach, describe, expect, it } from "vitest";
import { gitCommonDir } from "../../src/engine/records.ts";
import { reportPaths } from "../../src/local/reports.ts";
import { missionResult } from "../../src/report/index.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { itemOf, queueCommits, queueFiles, runMission } from "./local-fixture.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

describe("a clean local mission", () => {
  it("integrates every item, approves, and reports the §13 result", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n", "src/a/keep.txt": "kept\n" });
    repos.push(repo);
    const m = await runMission(
      repo,
      [{ id: "a" }, { id: "b" }, { id: "c", after: ["a"], edits: { "src/c/c.txt": "after a\n" } }, { id: "d", writes: ["docs/guide.md"] }],
      { verify: "test -e README.md" },
    );

    expect(m.status).toBe("done");
    expect(m.verdict?.verdict).toBe("approve");
    // Nothing of it is left in the work root: each work directory went with its attempt, the mission's folder with the run.
    const root = join(TEST_CACHE, "naruto", (await workRepo(repo.git, repo.dir)).key);
    expect(await readdir(root).catch(() => [])).not.toContain(m.id);

    // One queue commit per item, each carrying its trailers and only its own files.
    const commits = await queueCommits(repo, m);
    expect(commits.map((c) => c.item).sort()).toEqual(["a", "b", "c", "d"]);
    const byItem = new Map(commits.map((c) => [c.item, c]));
    expect(byItem.get("a")?.files).toEqual(["src/a/a.txt"]);
    expect(byItem.get("b")?.files).toEqual(["src/b/b.txt"]);
    expect(byItem.get("c")?.files).toEqual(["src/c/c.txt"]);
    expect(byItem.get("d")?.files).toEqual(["docs/guide.md"]);
    expect(commits.every((c) => c.attempt === 1)).toBe(true);

    const files = await queueFiles(repo, m);
    expect(files).toEqual({
      "README.md": "# app\n",
      "src/a/keep.txt": "kept\n",
      "src/a/a.txt": "edited by a (attempt 1)\n",
      "src/b/b.txt": "edited by b (attempt 1)\n",
      "src/c/c.txt": "after a\n",
      "docs/guide.md": "edited by d (attempt 1)\n",
    });

    // c waited for a: its attempt started from a queue head that holds a's commit.
    const cBase = itemOf(m, "c").attempts[0]?.base ?? "";
    const aCommit = byItem.get("a")?.commit ?? "";
    const ancestor = await repo.git({ args: ["merge-base", "--is-ancestor", aCommit, cBase], cwd: repo.dir, okCodes: [1] });
    expect(ancestor.code).toBe(0);

    const head = await repo.run("rev-parse", `refs/heads/naruto/${m.id}`);
    expect(m.queue.verify_runs).toBeGreaterThan(0);
    expect(missionResult(m)).toEqual({
      mission: m.id,
      status: "done",
      verdict: "approve",
      queue: { branch: `naruto/${m.id}`, head, verify_runs: m.queue.verify_runs },
      items: ["a", "b", "c", "d"].map((id) => ({
        id,
        status: "integrated",
        attempts: 1,
        commit: byItem.get(id)?.commit,
        changed: byItem.get(id)?.files,
        reason: null,
      })),
      sandbox: expect.stringMatching(/^(bwrap [\d.]+|none \(.+\))$/),
    });

    // The report files next to the state hold the same result.
    const paths = reportPaths(await gitCommonDir(repo.git, repo.dir), m.id);
    expect(JSON.parse(await readFile(paths.json, "utf8"))).toEqual(missionResult(m));
    expect(await readFile(paths.markdown, "utf8")).toContain(m.id);
  });
});
