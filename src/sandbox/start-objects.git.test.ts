/**
 * The start-commit packs (start-objects.ts) on a real repository: a later start commit's walk
 * back to the packed one reads its ancestry through the repository's long-running `cat-file`
 * (the named operation readObjects), not a process per generation of commits.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, testGit, type TestRepo } from "../../test/support/git-repo.ts";
import { startObjects } from "./start-objects.ts";

let repo: TestRepo | undefined;
let folder: string | undefined;
afterEach(async () => {
  await repo?.remove();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

describe("a later start commit", () => {
  it("walks back to the packed one through one cat-file process, whatever the number of commits between", async () => {
    repo = await createTestRepo({ "README.md": "# app\n" });
    folder = await mkdtemp(join(tmpdir(), "naruto-start-objects-"));
    const spawned: string[] = [];
    const git = testGit((args) => spawned.push(args.join(" ")));
    const first = await repo.run("rev-parse", "HEAD");
    expect(await startObjects({ git, repoDir: repo.dir, folder, commit: first })).toHaveLength(1);
    // A mission's queue: one commit per integrated item.
    let head = first;
    for (let i = 0; i < 12; i++) head = await repo.commit(`item ${i}`, { [`src/item-${i}.txt`]: `${i}\n` });
    spawned.length = 0;
    const packs = await startObjects({ git, repoDir: repo.dir, folder, commit: head });
    expect(packs).toEqual([join(folder, ".objects", `root-${first}`), join(folder, ".objects", `${first}..${head}`)]);
    expect(spawned.filter((a) => a.includes("cat-file"))).toEqual(["--no-optional-locks cat-file --batch"]);
  });
});
