/**
 * The local runner's parallelism (issue 4 "Benchmark"): 16 independent items whose agents each
 * sleep a fixed time, run as a whole mission with 4 agents at once and, in the same run, one at a
 * time. Everything else is real: work trees, checkpoints, the queue, the arbiter. The ideal
 * speedup is 4×; what is lost is naruto's own work per item (work tree, scope check,
 * checkpoint, integration) and the machine's cores starting agents.
 */
import { tmpdir } from "node:os";
import { performance } from "node:perf_hooks";
import { loadConfig, formatConfigErrors, type Config } from "../src/config/index.ts";
import { runLocalMission } from "../src/local/local-mission.ts";
import { silentProgress } from "../src/local/progress.ts";
import { fakeAgentCommand } from "../test/support/agents/index.ts";
import { createTestRepo } from "../test/support/git-repo.ts";

const ITEMS = 16;
const SLEEP_MS = 1000;
const PARALLEL = 4;

function config(): Config {
  const loaded = loadConfig(
    JSON.stringify({
      version: 1,
      agents: { default: { command: `NARUTO_FAKE_SLEEP_MS=${SLEEP_MS} ${fakeAgentCommand("slow")}` } },
      queue: { batch: 8 },
      limits: { max_parallel: PARALLEL, max_attempts: 1, item_timeout: "5m" },
    }),
  );
  if (!loaded.ok) throw new Error(formatConfigErrors(loaded.errors));
  return loaded.config;
}

const plan = JSON.stringify({
  version: 1,
  title: "16 independent items",
  items: Array.from({ length: ITEMS }, (_, i) => ({ id: `item-${i}`, title: `item ${i}`, writes: [`src/item-${i}/`] })),
});

/** Wall time of one whole mission with `parallel` agents at once. */
async function mission(parallel: number): Promise<number> {
  const repo = await createTestRepo({ "README.md": "# bench\n" });
  let n = 0;
  try {
    const start = performance.now();
    const m = await runLocalMission(
      { git: repo.git, env: { PATH: process.env.PATH, HOME: tmpdir() }, now: () => new Date(), randomId: () => `bench${parallel}x${n++}`, progress: silentProgress },
      { repoDir: repo.dir, planText: plan, task: null, baseRef: "HEAD", agentCommand: null, parallel, verify: null, strict: false, config: config() },
    );
    const seconds = (performance.now() - start) / 1000;
    const integrated = m.items.filter((i) => i.status === "integrated").length;
    if (m.verdict?.verdict !== "approve" || integrated !== ITEMS) {
      throw new Error(`the --parallel ${parallel} mission ended ${m.status} (${m.verdict?.verdict ?? "no verdict"}) with ${integrated}/${ITEMS} integrated:\n${m.items.filter((i) => i.status !== "integrated").map((i) => `${i.id}: ${i.status}: ${i.reason ?? ""}`).join("\n")}`);
    }
    return seconds;
  } finally {
    await repo.remove();
  }
}

export async function run(): Promise<void> {
  const parallel = await mission(PARALLEL);
  const serial = await mission(1);
  const speedup = serial / parallel;
  const ideal = (ITEMS * SLEEP_MS) / 1000;
  console.log(`${ITEMS} items, agents sleeping ${SLEEP_MS} ms each; every mission approved with all items integrated`);
  console.log(`| agents at once | wall seconds | agent sleep alone |\n|---|---|---|`);
  console.log(`| ${PARALLEL} (--parallel ${PARALLEL}) | ${parallel.toFixed(2)} | ${(ideal / PARALLEL).toFixed(2)} |`);
  console.log(`| 1 (--parallel 1) | ${serial.toFixed(2)} | ${ideal.toFixed(2)} |`);
  console.log(`speedup ${speedup.toFixed(2)}× (ideal ${PARALLEL}×)`);
  console.log(`bench local parallel_seconds=${parallel.toFixed(2)}`);
  console.log(`bench local serial_seconds=${serial.toFixed(2)}`);
  console.log(`bench local speedup=${speedup.toFixed(2)}`);
}
