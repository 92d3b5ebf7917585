/**
 * Integration latency (issue 37): how long a checkpoint waits between its agent's exit and its
 * place on the queue, for 64 items, 4 agents at once and a queue verify that takes 10 s, against
 * the bound of one verify (a checkpoint cannot be on a verified queue sooner than one verify
 * after it exists). A whole local mission: agents that sleep 5 to 15 s (the same for every run:
 * item i sleeps 5 + (7·i mod 11) s), `sleep 10` as `queue.verify`, the default batch of 8.
 *
 * `NARUTO_BENCH_VERIFY_S=2` scales every duration (agents and verify) for a quick look; the ratio
 * to the bound is what matters. Prints `bench latency …` lines.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { loadConfig, formatConfigErrors, type Config } from "../src/config/index.ts";
import { runLocalMission } from "../src/local/local-mission.ts";
import { silentProgress } from "../src/local/progress.ts";
import type { MissionEvent } from "../src/mission/events.ts";
import { createTestRepo, testGit } from "../test/support/git-repo.ts";

const ITEMS = 64;
const SLOTS = 4;
const VERIFY_S = Number(process.env["NARUTO_BENCH_VERIFY_S"] ?? 10);

function config(): Config {
  const scale = VERIFY_S / 10;
  // Item i sleeps 5 + (7·i mod 11) seconds (scaled): arrivals spread over the mission, the same each run.
  const agent = `n=\${NARUTO_ITEM#item-}; sleep $(awk "BEGIN { print (5 + (7 * $n) % 11) * ${scale} }"); mkdir -p "src/$NARUTO_ITEM" && echo "$NARUTO_ITEM" > "src/$NARUTO_ITEM/done.txt"`;
  const loaded = loadConfig(
    JSON.stringify({
      version: 1,
      agents: { default: { command: agent } },
      queue: { verify: `sleep ${VERIFY_S}`, batch: 8 },
      limits: { max_parallel: SLOTS, max_attempts: 1, item_timeout: "10m", mission_timeout: "1h", max_items: 1000 },
    }),
  );
  if (!loaded.ok) throw new Error(formatConfigErrors(loaded.errors));
  return loaded.config;
}

function plan(): string {
  return JSON.stringify({
    version: 1,
    title: `${ITEMS} independent items`,
    items: Array.from({ length: ITEMS }, (_, i) => ({ id: `item-${i}`, title: `item ${i}`, writes: [`src/item-${i}/`] })),
  });
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

export async function run(): Promise<void> {
  const repo = await createTestRepo({ "README.md": "# latency\n" });
  try {
    const exited = new Map<string, number>();
    const waits: number[] = [];
    const progress = {
      ...silentProgress,
      event(e: MissionEvent) {
        const now = performance.now();
        if (e.type === "agent_exited") exited.set(e.item, now);
        if (e.type === "integrated") {
          for (const r of e.results) {
            const exit = exited.get(r.item);
            if (r.kind === "integrated" && exit !== undefined) waits.push((now - exit) / 1000);
          }
        }
      },
    };
    const start = performance.now();
    const m = await runLocalMission(
      {
        git: testGit(),
        env: { PATH: process.env.PATH, HOME: tmpdir(), XDG_CACHE_HOME: join(tmpdir(), "naruto-bench-cache") },
        now: () => new Date(),
        randomId: () => `lat${Math.random().toString(36).slice(2, 8)}`,
        progress,
        nodePath: process.execPath,
        cwd: repo.dir,
      },
      { repoDir: repo.dir, planText: plan(), task: null, baseRef: "HEAD", agentCommand: null, parallel: SLOTS, verify: null, strict: false, config: config() },
    );
    const seconds = (performance.now() - start) / 1000;
    const integrated = m.items.filter((i) => i.status === "integrated").length;
    if (integrated !== ITEMS) throw new Error(`the mission ended ${m.status} with ${integrated}/${ITEMS} integrated: ${m.reason ?? ""}`);
    const sorted = [...waits].sort((a, b) => a - b);
    const mean = waits.reduce((a, b) => a + b, 0) / waits.length;
    const bound = VERIFY_S;
    console.log(
      `${ITEMS} items, ${SLOTS} agents at once, verify ${VERIFY_S} s, batches of 8: mission ${seconds.toFixed(1)} s, ${m.queue.verify_runs} verify runs`,
    );
    console.log(
      `from an agent's exit to its checkpoint on the queue: mean ${mean.toFixed(1)} s, median ${percentile(sorted, 0.5).toFixed(1)} s, p95 ${percentile(sorted, 0.95).toFixed(1)} s, max ${(sorted.at(-1) ?? 0).toFixed(1)} s`,
    );
    console.log(`bound: one verify, ${bound} s; mean ${(mean / bound).toFixed(2)}× the bound, p95 ${(percentile(sorted, 0.95) / bound).toFixed(2)}×`);
    console.log(`bench latency bound_s=${bound}`);
    console.log(`bench latency mean_s=${mean.toFixed(2)}`);
    console.log(`bench latency p95_s=${percentile(sorted, 0.95).toFixed(2)}`);
    console.log(`bench latency mean_over_bound=${(mean / bound).toFixed(2)}`);
    console.log(`bench latency p95_over_bound=${(percentile(sorted, 0.95) / bound).toFixed(2)}`);
    console.log(`bench latency verify_runs=${m.queue.verify_runs}`);
  } finally {
    await repo.remove();
  }
}
