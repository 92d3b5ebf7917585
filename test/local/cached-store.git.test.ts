/**
 * The driver's caching store (src/local/cached-store.ts) keeps the store contract, and a write
 * from another process (`naruto cancel`) is never lost behind its cache.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createLocalMissionStore } from "../../src/store/git-store.ts";
import { cachedStore } from "../../src/local/cached-store.ts";
import { applyEvent } from "../../src/mission/store.ts";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { at, item, planned, requested } from "../support/mission-builders.ts";
import { describeStoreConformance } from "../support/store-conformance.ts";

const repos: TestRepo[] = [];
afterAll(async () => {
  await Promise.all(repos.map((r) => r.remove()));
});

async function repo(): Promise<TestRepo> {
  const r = await createTestRepo();
  repos.push(r);
  return r;
}

describeStoreConformance(
  "cached local store",
  async () => {
    const r = await repo();
    return cachedStore(createLocalMissionStore({ git: r.git, repoDir: r.dir }));
  },
  { concurrent: 4 },
);

describe("cachedStore beside another writer", () => {
  it("answers loads from its last save until refreshed, and never saves over another writer", async () => {
    const r = await repo();
    const elsewhere = createLocalMissionStore({ git: r.git, repoDir: r.dir });
    const store = cachedStore(createLocalMissionStore({ git: r.git, repoDir: r.dir }));
    await applyEvent(store, "m-test1", requested());
    await applyEvent(store, "m-test1", planned([item("a"), item("b")]));

    // Another process cancels the mission.
    await applyEvent(elsewhere, "m-test1", { type: "cancelled", at: at(2), by: "someone" });
    expect((await store.load("m-test1"))?.mission.status).toBe("running"); // still the cached version

    // An event applied on the stale cache loses its compare-and-swap, reloads, and sees the cancel.
    const r1 = await applyEvent(store, "m-test1", { type: "attempt_started", at: at(3), item: "a", attempt: 1, base: "b".repeat(40), runner: "pid 1" });
    expect(r1.mission.status).toBe("cancelled");
    expect(r1.duplicate).toBe(true);
    expect((await elsewhere.load("m-test1"))?.mission.status).toBe("cancelled");

    // refresh makes the next load read git again.
    await applyEvent(elsewhere, "m-test1", { type: "tick", at: at(4) });
    store.refresh("m-test1");
    expect((await store.load("m-test1"))?.version).toBe((await elsewhere.load("m-test1"))?.version);
  });
});
