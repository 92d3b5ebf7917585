/**
 * The engine's own cost per item (issue 15 "Linear engine"): a whole simulated mission (no agents,
 * no queue git) of 64, 256 and 2,000 items, every event applied as the local driver applies it:
 * `applyEvent` on the driver's caching store over the real local store, in a throwaway git
 * repository (each save is a commit on `refs/naruto/missions/<id>` moved by compare-and-swap).
 * Next to it, in the same run, the naive way: the whole mission cloned before every step and
 * the whole document written by every save (`mission.json` in one blob, as the store did before).
 * The figure that matters is flatness: ms per item at 2,000 over ms per item at 64 (target ≤ 2).
 *
 * Then the queue's own cost over a growing queue: `integrateBatch` of 8 checkpoints at a time
 * onto a queue that grows to 256 items, ms per batch over the first and the last 64 items.
 *
 * `NARUTO_BENCH_SIZES=64,256` measures fewer sizes; the naive way runs up to
 * `NARUTO_BENCH_NAIVE_MAX` items (default 256: at 2,000 it takes minutes), the store up to
 * `NARUTO_BENCH_STORE_MAX` (default all).
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createLocalMissionStore } from "../src/store/git-store.ts";
import { rawIdent, runFastImport } from "../src/git/fast-import.ts";
import { GitError } from "../src/git/run-git.ts";
import { refUpdate, updateRefs } from "../src/git/ref-sessions.ts";
import { cachedStore } from "../src/local/cached-store.ts";
import { parseMission, type Mission } from "../src/mission/document.ts";
import { applyEvent, type MissionStore } from "../src/mission/store.ts";
import { step } from "../src/mission/step.ts";
import { createTestRepo, type TestRepo } from "../test/support/git-repo.ts";
import { runSimulatedMission, simulatedPlan } from "../test/support/simulated-mission.ts";
import { integrationOverGrowingQueue } from "./_engine-queue.ts";

const SIZES = (process.env["NARUTO_BENCH_SIZES"] ?? "64,256,2000")
  .split(",")
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const NAIVE_MAX = Number(process.env["NARUTO_BENCH_NAIVE_MAX"] ?? 256);
/** Sizes above it are measured without the store (`NARUTO_BENCH_STORE_MAX=256`: a quick look). */
const STORE_MAX = Number(process.env["NARUTO_BENCH_STORE_MAX"] ?? Number.POSITIVE_INFINITY);

/** The naive store: every save writes the whole document as one blob (the store before issue 15). */
function wholeDocumentStore(repo: TestRepo): MissionStore {
  const prefix = "refs/naruto/bench-naive/";
  return {
    async load(id) {
      const version = await repo.run("rev-parse", "--verify", "--quiet", `${prefix}${id}^{commit}`).catch(() => "");
      if (version === "") return null;
      return { mission: parseMission(JSON.parse(await repo.run("cat-file", "blob", `${version}:mission.json`))), version };
    },
    async save(mission, expected) {
      const who = rawIdent({ name: "naruto", email: "naruto@localhost" }, new Date());
      const document = { mode: "100644", content: Buffer.from(`${JSON.stringify(mission, null, 2)}\n`) };
      const [commit = ""] = await runFastImport({
        git: repo.git,
        repoDir: repo.dir,
        from: expected,
        commits: [
          {
            author: who,
            committer: who,
            encoding: null,
            message: `seq ${mission.seq}\n`,
            changes: [{ path: "mission.json", after: document }],
            deleteAll: true,
          },
        ],
      });
      try {
        await repo.git(updateRefs(repo.dir, [refUpdate(prefix + mission.id, commit, expected ?? null)]));
      } catch (e) {
        if (e instanceof GitError) return { ok: false, reason: "conflict" };
        throw e;
      }
      return { ok: true, version: commit };
    },
    list: () => Promise.resolve([]),
    discard: () => Promise.resolve(),
  };
}

type Way = "naruto" | "naive";

/** The whole mission through `step` alone (no store): the engine's own cost. */
async function measureEngine(items: number, way: Way): Promise<number> {
  let mission: Mission | null = null;
  const plan = simulatedPlan(items);
  const start = performance.now();
  await runSimulatedMission({
    items: plan,
    apply: (e) => {
      const result = step(way === "naive" && mission !== null ? structuredClone(mission) : mission, e);
      mission = result.mission;
      return result;
    },
  });
  return performance.now() - start;
}

/** The whole mission as the local driver applies it: `applyEvent` on the caching store over a real store. */
/** Bytes of every loose object in the repository: what the saves wrote (compressed). */
async function objectBytes(repo: TestRepo): Promise<number> {
  const dir = join(repo.dir, ".git", "objects");
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

async function measureWithStore(items: number, way: Way): Promise<{ ms: number; events: number; kbPerSave: number }> {
  const repo = await createTestRepo();
  try {
    const plan = simulatedPlan(items);
    const store = cachedStore(way === "naruto" ? createLocalMissionStore({ git: repo.git, repoDir: repo.dir }) : wholeDocumentStore(repo));
    const id = "m-test1";
    const apply =
      way === "naruto"
        ? (e: Parameters<typeof step>[1]) => applyEvent(store, id, e)
        : async (e: Parameters<typeof step>[1]) => {
            // The naive engine: a deep copy of the whole mission before every step.
            const stored = await store.load(id);
            const result = step(stored === null ? null : structuredClone(stored.mission), e);
            if (!result.duplicate) {
              const saved = await store.save(result.mission, stored?.version ?? null);
              if (!saved.ok) throw new Error("the naive store lost a race it cannot lose");
            }
            return result;
          };
    const bytesBefore = await objectBytes(repo);
    let saves = 0;
    const start = performance.now();
    const { mission, events } = await runSimulatedMission({
      items: plan,
      apply: async (e) => {
        const r = await apply(e);
        if (!r.duplicate) saves++;
        return r;
      },
    });
    const ms = performance.now() - start;
    const kbPerSave = (await objectBytes(repo)) - bytesBefore;
    if (mission.status !== "done" || mission.items.some((i) => i.status !== "integrated")) throw new Error(`the ${items}-item mission ended ${mission.status}`);
    const reloaded = await createLocalMissionStore({ git: repo.git, repoDir: repo.dir }).load(id);
    if (way === "naruto" && JSON.stringify(reloaded?.mission) !== JSON.stringify(mission)) throw new Error("the stored mission is not the one the engine made");
    return { ms, events, kbPerSave: kbPerSave / 1024 / saves };
  } finally {
    await repo.remove();
  }
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);
const cell = (n: number | null, width: number) => (n === null ? "-" : fmt(n)).padStart(width);

export async function run(): Promise<void> {
  console.log("ms per item: engine = step alone; + store = applyEvent on the cached local store (a commit and an update-ref per save)");
  console.log("items  events  engine  naive engine  engine+store  naive+store  naive/naruto (+store)  KB per save  naive KB per save");
  const perItem = new Map<number, number>();
  const kbPerSave = new Map<number, number>();
  for (const size of SIZES) {
    const engine = (await measureEngine(size, "naruto")) / size;
    const naiveEngine = size <= NAIVE_MAX ? (await measureEngine(size, "naive")) / size : null;
    const stored = size <= STORE_MAX ? await measureWithStore(size, "naruto") : null;
    const naiveRun = size <= NAIVE_MAX && size <= STORE_MAX ? await measureWithStore(size, "naive") : null;
    const naiveStored = naiveRun === null ? null : naiveRun.ms / size;
    const mine = stored === null ? null : stored.ms / size;
    if (mine !== null) perItem.set(size, mine);
    console.log(
      `${String(size).padStart(5)}  ${String(stored?.events ?? "-").padStart(6)}  ${cell(engine, 6)}  ${cell(naiveEngine, 12)}  ${cell(mine, 12)}  ${cell(naiveStored, 11)}  ${(naiveStored === null || mine === null ? "-" : fmt(naiveStored / mine, 1)).padStart(21)}  ${cell(stored?.kbPerSave ?? null, 11)}  ${cell(naiveRun?.kbPerSave ?? null, 17)}`,
    );
    if (stored !== null) kbPerSave.set(size, stored.kbPerSave);
  }
  for (const [size, ms] of perItem) console.log(`bench engine ms_per_item_${size}=${fmt(ms)}`);
  for (const [size, kb] of kbPerSave) console.log(`bench engine store_kb_per_save_${size}=${fmt(kb)}`);
  const small = perItem.get(64);
  const large = perItem.get(2000);
  if (small !== undefined && large !== undefined) console.log(`bench engine flatness=${fmt(large / small)}`);

  const queue = await integrationOverGrowingQueue({ items: 256, batch: 8 });
  console.log(`queue of 256 items, batches of 8: ${fmt(queue.firstMs)} ms per batch over the first 64 items, ${fmt(queue.lastMs)} over the last 64`);
  console.log(`bench engine integrate_ms_first=${fmt(queue.firstMs)}`);
  console.log(`bench engine integrate_ms_last=${fmt(queue.lastMs)}`);
}
