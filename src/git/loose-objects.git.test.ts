/** In-process objects are byte for byte git's own: same ids as hash-object, mktree and commit-tree, and fsck is clean. */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { gitText } from "./run-git.ts";
import { commitText, flatTree, looseObjectsDir, writeLooseObject } from "./loose-objects.ts";

let repo: TestRepo;
beforeAll(async () => {
  repo = await createTestRepo();
});
afterAll(async () => repo.remove());

describe("loose objects", () => {
  it("writes blobs, trees and commits with the ids git gives them", async () => {
    const dir = await looseObjectsDir(repo.git, repo.dir);
    expect(dir).not.toBeNull();
    const text = '{ "a": "ü\\n" }\n';
    const blob = await writeLooseObject(dir!, "blob", Buffer.from(text));
    expect(blob).toBe(await gitText(repo.git, { args: ["hash-object", "--stdin"], cwd: repo.dir, input: text }));
    const other = await writeLooseObject(dir!, "blob", Buffer.from("b"));
    const tree = await writeLooseObject(dir!, "tree", flatTree([{ name: "z.json", blob: other }, { name: "mission.json", blob }]));
    expect(tree).toBe(await gitText(repo.git, { args: ["mktree"], cwd: repo.dir, input: `100644 blob ${other}\tz.json\n100644 blob ${blob}\tmission.json\n` }));
    const at = new Date("2026-11-30T06:00:00Z");
    const parent = await repo.run("rev-parse", "HEAD");
    const commit = await writeLooseObject(dir!, "commit", commitText({ tree, parents: [parent], identity: { name: "naruto", email: "naruto@localhost" }, at, message: "m-1: running (seq 3)" }));
    const env = { GIT_AUTHOR_NAME: "naruto", GIT_AUTHOR_EMAIL: "naruto@localhost", GIT_COMMITTER_NAME: "naruto", GIT_COMMITTER_EMAIL: "naruto@localhost", GIT_AUTHOR_DATE: "1796018400 +0000", GIT_COMMITTER_DATE: "1796018400 +0000" };
    expect(commit).toBe(await gitText(repo.git, { args: ["commit-tree", tree, "-p", parent, "-m", "m-1: running (seq 3)"], cwd: repo.dir, env }));
    await repo.run("update-ref", "refs/naruto/test", commit);
    await repo.run("fsck", "--strict", "--no-dangling");
    expect(await repo.run("cat-file", "blob", `${commit}:mission.json`)).toBe(text.trimEnd());
  });

  it("makes a fan-out folder again that was pruned after it wrote into it", async () => {
    const dir = await looseObjectsDir(repo.git, repo.dir);
    const blob = await writeLooseObject(dir!, "blob", Buffer.from("pruned and written again\n"));
    // What `git prune` does to a folder whose objects are gone.
    await rm(join(dir!, blob.slice(0, 2)), { recursive: true });
    expect(await writeLooseObject(dir!, "blob", Buffer.from("pruned and written again\n"))).toBe(blob);
    expect(await repo.run("cat-file", "blob", blob)).toBe("pruned and written again");
  });

  it("answers null for a SHA-256 repository, whose callers then go through git", async () => {
    const sha256 = await createTestRepo();
    try {
      await sha256.run("init", "-q", "--object-format=sha256", `${sha256.dir}/x`);
      expect(await looseObjectsDir(sha256.git, `${sha256.dir}/x`)).toBeNull();
    } finally {
      await sha256.remove();
    }
  });
});
