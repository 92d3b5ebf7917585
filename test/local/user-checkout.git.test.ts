/**
 * A whole local mission leaves the user's checkout alone (issue 4: "the user's branch and work
 * tree are not touched"): a dirty tree with staged, unstaged and untracked changes is
 * byte-identical afterwards, index and HEAD included, and none of it reaches the queue.
 */
import { afterEach, describe, expect, it } from "vitest";
import { snapshotCheckout } from "../support/checkout-snapshot.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { queueFiles, runMission } from "./local-fixture.ts";

const repos: TestRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.remove()));
});

describe("the user's checkout during a local mission", () => {
  it("is byte-identical before and after, with staged, unstaged and untracked changes", async () => {
    const repo = await createTestRepo({ "README.md": "# app\n", "src/app.ts": "export {};\n", "notes.txt": "v1\n" });
    repos.push(repo);
    await repo.write({ "src/app.ts": "export const staged = 1;\n", "src/new.ts": "staged new file\n" });
    await repo.run("add", "src/app.ts", "src/new.ts");
    await repo.write({ "notes.txt": "unstaged edit\n", "src/app.ts": "export const staged = 1; // and unstaged\n", "scratch/todo.md": "untracked\n" });
    const head = await repo.run("rev-parse", "HEAD");
    const before = await snapshotCheckout(repo.dir);

    const m = await runMission(repo, [
      { id: "readme", writes: ["README.md"], edits: { "README.md": "# app, by naruto\n" } },
      { id: "notes", writes: ["notes.txt"], edits: { "notes.txt": "v2 by naruto\n" } },
      { id: "lib" },
    ]);

    expect(m.verdict?.verdict).toBe("approve");
    expect(await snapshotCheckout(repo.dir)).toEqual(before);
    expect(await repo.run("rev-parse", "HEAD")).toBe(head);
    expect(await repo.run("rev-parse", "main")).toBe(head);
    expect(await repo.run("symbolic-ref", "HEAD")).toBe("refs/heads/main");

    // The queue starts from the commit, not from the dirty tree.
    expect(await queueFiles(repo, m)).toEqual({
      "README.md": "# app, by naruto\n",
      "notes.txt": "v2 by naruto\n",
      "src/app.ts": "export {};\n",
      "src/lib/lib.txt": "edited by lib (attempt 1)\n",
    });
  });
});
