/** A repository's layout is asked of git once, whoever needs a part of it. */
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestRepo, testGit, type TestRepo } from "../../test/support/git-repo.ts";
import { gitCommonDir } from "../engine/index.ts";
import { workRepo } from "../sandbox/index.ts";
import { createLocalMissionStore } from "../store/index.ts";
import { repoLayout } from "./repo-layout.ts";
import { applyEvent } from "../mission/index.ts";
import { requested } from "../../test/support/mission-builders.ts";

const repos: TestRepo[] = [];
afterAll(async () => {
  await Promise.all(repos.map((r) => r.remove()));
});

describe("the repository's layout", () => {
  it("is one rev-parse for the records' folder, the object store, the work directories and the store", async () => {
    const repo = await createTestRepo();
    repos.push(repo);
    const asked: string[] = [];
    const git = testGit((args) => {
      if (args.includes("rev-parse") && !args.includes("--verify")) asked.push(args.join(" "));
    });
    const commonDir = await gitCommonDir(git, repo.dir);
    expect(commonDir).toBe(await realpath(join(repo.dir, ".git")));
    expect((await repoLayout(git, repo.dir)).objectsDir).toBe(join(commonDir, "objects"));
    expect((await workRepo(git, repo.dir)).objects).toMatchObject({ commonDir, objects: [join(commonDir, "objects")], format: "sha1" });
    const store = createLocalMissionStore({ git, repoDir: repo.dir });
    await applyEvent(store, "m-test1", requested({ max_parallel: 1 }));
    expect((await store.load("m-test1"))?.mission.id).toBe("m-test1");
    // The layout, and the top level for the work directories' key: nothing else.
    expect(asked).toEqual([
      "rev-parse --path-format=absolute --git-common-dir --git-path objects --show-object-format --is-bare-repository",
      "rev-parse --show-toplevel",
    ]);
  });

  it("says what a bare SHA-256 repository is, and asks again after a failure", async () => {
    const repo = await createTestRepo();
    repos.push(repo);
    const bare = join(repo.dir, "bare.git");
    await expect(repoLayout(repo.git, bare)).rejects.toThrow();
    await repo.run("init", "-q", "--bare", "--object-format=sha256", bare);
    expect(await repoLayout(repo.git, bare)).toEqual({
      commonDir: await realpath(bare),
      objectsDir: join(await realpath(bare), "objects"),
      format: "sha256",
      bare: true,
    });
  });
});
