import { rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Mission } from "../mission/index.ts";
import type { MissionEvent } from "../mission/index.ts";
import { applyEvent } from "../mission/index.ts";
import { step } from "../mission/index.ts";
import { createLocalMissionStore, readMissionVersion } from "./git-store.ts";
import { at, item, planned, requested } from "../../test/support/mission-builders.ts";
import { runSimulatedMission, simulatedPlan } from "../../test/support/simulated-mission.ts";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { describeStoreConformance, HEAVY_TEST_TIMEOUT_MS } from "../../test/support/store-conformance.ts";

const repos: TestRepo[] = [];
afterAll(async () => {
  await Promise.all(repos.map((r) => r.remove()));
});

describeStoreConformance(
  "local git ref store",
  async () => {
    const repo = await createTestRepo();
    repos.push(repo);
    return createLocalMissionStore({ git: repo.git, repoDir: repo.dir });
    // Locally the writers are processes of one machine; 16 racing writers already retry hundreds of
    // times (every lost race costs a few git processes), which is what the contract is about.
  },
  { concurrent: 16 },
);

// A SHA-256 repository: fast-import writes the store's commits in either object format.
describeStoreConformance(
  "local git ref store (SHA-256 repository)",
  async () => {
    const repo = await createTestRepo();
    repos.push(repo);
    const dir = `${repo.dir}/sha256`;
    await repo.run("init", "-q", "--object-format=sha256", dir);
    return createLocalMissionStore({ git: repo.git, repoDir: dir });
  },
  { concurrent: 4 },
);

describe("local git ref store: one record per item", () => {
  async function fresh() {
    const repo = await createTestRepo();
    repos.push(repo);
    return { repo, store: createLocalMissionStore({ git: repo.git, repoDir: repo.dir }) };
  }
  const blobs = async (repo: TestRepo, version: string) =>
    new Map((await repo.run("ls-tree", "-r", version)).split("\n").map((l) => [l.slice(l.indexOf("\t") + 1), l.split(/\s/)[2] ?? ""]));

  it("writes only the records an event changed; every other item keeps its blob", async () => {
    const { repo, store } = await fresh();
    const ids = Array.from({ length: 130 }, (_, i) => `i${i}`);
    await applyEvent(store, "m-test1", requested({ max_parallel: 1 }));
    const planned1 = await applyEvent(store, "m-test1", planned(ids.map((id) => item(id))));
    const v1 = (await store.load("m-test1"))?.version ?? "";
    await applyEvent(store, "m-test1", { type: "attempt_started", at: at(2), item: "i0", attempt: 1, base: "b".repeat(40), runner: "pid 1" });
    const v2 = (await store.load("m-test1"))?.version ?? "";
    const [before, after] = [await blobs(repo, v1), await blobs(repo, v2)];
    const changed = [...after].filter(([path, id]) => before.get(path) !== id).map(([path]) => path);
    // The item, its folder, the folders' list, the document and the root; not the other 129 items.
    expect(changed.sort()).toEqual(["document.json", "items/0000/00000.json"]);
    expect(after.size).toBe(130 + 2);
    expect(planned1.mission.items).toHaveLength(130);
  });

  it("fails a save whose objects cannot all be written, and moves nothing", async () => {
    const { repo, store } = await fresh();
    await applyEvent(store, "m-test1", requested({ max_parallel: 1 }));
    const before = (await store.load("m-test1"))?.version ?? "";
    // Every fan-out folder that is not there yet becomes a file, and so does the pack folder:
    // the save's new objects fail, whichever ids they have and however git writes them.
    const objects = join(repo.dir, ".git", "objects");
    const blocked: string[] = [];
    for (let i = 0; i < 256; i++) {
      const folder = join(objects, i.toString(16).padStart(2, "0"));
      if (
        await writeFile(folder, "", { flag: "wx" }).then(
          () => true,
          () => false,
        )
      )
        blocked.push(folder);
    }
    await rename(join(objects, "pack"), join(objects, "pack.aside"));
    await writeFile(join(objects, "pack"), "");
    await expect(applyEvent(store, "m-test1", planned([item("a"), item("b")]))).rejects.toThrow();
    await Promise.all([...blocked, join(objects, "pack")].map((f) => rm(f)));
    await rename(join(objects, "pack.aside"), join(objects, "pack"));
    expect(await repo.run("rev-parse", "refs/naruto/missions/m-test1")).toBe(before);
  });

  it(
    "loads every version back exactly, also from a store that never saw it (a resumed run)",
    async () => {
      const { repo, store } = await fresh();
      const saved: Mission[] = [];
      await runSimulatedMission({
        items: simulatedPlan(24),
        apply: async (e) => {
          const r = await applyEvent(store, "m-test1", e);
          if (!r.duplicate) saved.push(r.mission);
          return r;
        },
      });
      const versions = (await repo.run("rev-list", "--reverse", "refs/naruto/missions/m-test1")).split("\n");
      expect(versions).toHaveLength(saved.length);
      const read: Mission[] = [];
      for (const v of versions) read.push(await readMissionVersion(repo.git, repo.dir, v));
      expect(read.map((m) => JSON.stringify(m))).toEqual(saved.map((m) => JSON.stringify(m)));
      // Another process (resume after a crash) reads the last version and goes on from it.
      const resumed = createLocalMissionStore({ git: repo.git, repoDir: repo.dir });
      const loaded = await resumed.load("m-test1");
      expect(loaded?.mission).toEqual(saved.at(-1));
      const r = await applyEvent(resumed, "m-test1", {
        type: "tampered",
        at: at(100),
        findings: [{ at: at(100), what: "refs/heads/main", before: null, after: "1".repeat(40), blame: "user", attempts: [], action: null }],
      });
      expect(r.duplicate).toBe(false);
      expect(await readMissionVersion(repo.git, repo.dir, await repo.run("rev-parse", "refs/naruto/missions/m-test1"))).toEqual(r.mission);
    },
    HEAVY_TEST_TIMEOUT_MS,
  );

  it("detects a lost race even when it knows the version it saved (two stores, one ref)", async () => {
    const { repo, store } = await fresh();
    const other = createLocalMissionStore({ git: repo.git, repoDir: repo.dir });
    await applyEvent(store, "m-test1", requested());
    await applyEvent(store, "m-test1", planned([item("a"), item("b")]));
    const mine = await store.load("m-test1");
    await applyEvent(other, "m-test1", { type: "cancelled", at: at(2), by: "someone" });
    const next = step(mine?.mission ?? null, { type: "attempt_started", at: at(3), item: "a", attempt: 1, base: "b".repeat(40), runner: "pid 1" });
    expect(await store.save(next.mission, mine?.version ?? null)).toEqual({ ok: false, reason: "conflict" });
    // The store now reads the winner, and an event applied through it lands on top of the cancel.
    expect((await store.load("m-test1"))?.mission.status).toBe("cancelled");
  });

  it("loads the version it knows without starting git, and sees a change elsewhere, a packed ref and a deleted one", async () => {
    const { repo } = await fresh();
    const calls: string[] = [];
    const store = createLocalMissionStore({ git: (call) => (calls.push(call.args.join(" ")), repo.git(call)), repoDir: repo.dir });
    const other = createLocalMissionStore({ git: repo.git, repoDir: repo.dir });
    await applyEvent(store, "m-test1", requested());
    const saved = await applyEvent(store, "m-test1", planned([item("a")]));
    calls.length = 0;
    expect((await store.load("m-test1"))?.mission).toBe(saved.mission);
    expect(calls.filter((c) => c.includes("refs/naruto"))).toEqual([]);

    await applyEvent(other, "m-test1", { type: "cancelled", at: at(2), by: "someone" });
    expect((await store.load("m-test1"))?.mission.status).toBe("cancelled");
    // Packed, the ref has no loose file: git is asked, and answers the same version.
    const version = (await store.load("m-test1"))?.version;
    await repo.run("pack-refs", "--all");
    calls.length = 0;
    expect((await store.load("m-test1"))?.version).toBe(version);
    expect(calls.filter((c) => c.includes("refs/naruto"))).toHaveLength(1);
    await repo.run("update-ref", "-d", "refs/naruto/missions/m-test1");
    expect(await store.load("m-test1")).toBeNull();
  });

  it("reads a version in the old layout (the whole document as mission.json), and saves on top of it", async () => {
    const { repo, store } = await fresh();
    const first = step(null, requested());
    const second = step(first.mission, planned([item("a"), item("b")]));
    const text = `${JSON.stringify(second.mission, null, 2)}\n`;
    const id = (await repo.git({ args: ["hash-object", "-w", "--stdin"], cwd: repo.dir, input: text })).stdout.toString().trim();
    const tree = (await repo.git({ args: ["mktree"], cwd: repo.dir, input: `100644 blob ${id}\tmission.json\n` })).stdout.toString().trim();
    const commit = await repo.run("commit-tree", tree, "-m", "old layout");
    await repo.run("update-ref", "refs/naruto/missions/m-test1", commit);
    const loaded = await store.load("m-test1");
    expect(loaded?.mission).toEqual(second.mission);
    const r = await applyEvent(store, "m-test1", { type: "attempt_started", at: at(2), item: "a", attempt: 1, base: "b".repeat(40), runner: "pid 1" });
    const v = (await store.load("m-test1"))?.version ?? "";
    expect(await repo.run("rev-parse", `${v}^`)).toBe(commit);
    expect(await readMissionVersion(repo.git, repo.dir, v)).toEqual(r.mission);
    expect((await blobs(repo, v)).has("items/0000/00001.json")).toBe(true);
  });
});

describe("local git ref store: the version its ref names", () => {
  it("reads the mission its ref names, not what a replace ref puts in its place", async () => {
    const repo = await createTestRepo();
    repos.push(repo);
    const store = createLocalMissionStore({ git: repo.git, repoDir: repo.dir });
    const as = (id: string, parallel: number) => ({ ...requested({ max_parallel: parallel }), id, queue_branch: `naruto/${id}` }) as MissionEvent;
    await applyEvent(store, "m-real", as("m-real", 1));
    await applyEvent(store, "m-forged", as("m-forged", 3));
    const [real, forged] = [await repo.run("rev-parse", "refs/naruto/missions/m-real"), await repo.run("rev-parse", "refs/naruto/missions/m-forged")];
    // An unsandboxed agent can write refs/replace/: git would read the other version instead.
    await repo.run("replace", real, forged);
    const fresh = createLocalMissionStore({ git: repo.git, repoDir: repo.dir });
    expect((await fresh.load("m-real"))?.mission).toMatchObject({ id: "m-real", settings: { max_parallel: 1 } });
    expect((await readMissionVersion(repo.git, repo.dir, real)).id).toBe("m-real");
  });
});
