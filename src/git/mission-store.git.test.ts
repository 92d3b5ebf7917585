import { afterAll } from "vitest";
import { createLocalMissionStore } from "./mission-store.ts";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { describeStoreConformance } from "../../test/support/store-conformance.ts";

const repos: TestRepo[] = [];
afterAll(async () => {
  await Promise.all(repos.map((r) => r.remove()));
});

describeStoreConformance("local git ref store", async () => {
  const repo = await createTestRepo();
  repos.push(repo);
  return createLocalMissionStore({ git: repo.git, repoDir: repo.dir });
  // Locally the writers are processes of one machine; 16 racing writers already retry hundreds of
  // times (every lost race costs a few git processes), which is what the contract is about.
}, { concurrent: 16 });

// A SHA-256 repository: the store writes its objects through git there (see loose-objects.ts).
describeStoreConformance("local git ref store (SHA-256 repository)", async () => {
  const repo = await createTestRepo();
  repos.push(repo);
  const dir = `${repo.dir}/sha256`;
  await repo.run("init", "-q", "--object-format=sha256", dir);
  return createLocalMissionStore({ git: repo.git, repoDir: dir });
}, { concurrent: 4 });
