/**
 * The local runner's parallelism (issue 4 "Benchmark"): 16 independent items whose agents each
 * sleep a fixed time, run as a whole mission with 4 agents at once and, in the same run, one at a
 * time. Everything else is real: work trees, checkpoints, the queue, the arbiter. The ideal
 * speedup is 4×; what is lost is naruto's own work per item (work tree, scope check,
 * checkpoint, integration; counted as git_processes_per_item) and the machine's cores starting agents.
 * That work is CPU: with 4 agents at once on 2 cores it competes for them, so the figure also
 * prints the CPU used and the machine's load, without which it cannot be read.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
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

/**
 * CPU seconds used so far by this process and its finished children (git, agents): Linux's
 * /proc/self/stat, else this process alone.
 */
function cpuSeconds(): number {
  const own = process.cpuUsage();
  const ownSeconds = (own.user + own.system) / 1e6;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ownSeconds + (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return ownSeconds;
  }
}

/** Wall time and CPU time of one whole mission with `parallel` agents at once. */
async function mission(parallel: number): Promise<{ seconds: number; cpu: number; gitCalls: number }> {
  const repo = await createTestRepo({ "README.md": "# bench\n" });
  let n = 0;
  let gitCalls = 0;
  const git: typeof repo.git = (call) => {
    gitCalls++;
    return repo.git(call);
  };
  try {
    const start = performance.now();
    const cpuStart = cpuSeconds();
    const m = await runLocalMission(
      { git, env: { PATH: process.env.PATH, HOME: tmpdir() }, now: () => new Date(), randomId: () => `bench${parallel}x${n++}`, progress: silentProgress, nodePath: process.execPath, cwd: repo.dir },
      { repoDir: repo.dir, planText: plan, task: null, baseRef: "HEAD", agentCommand: null, parallel, verify: null, strict: false, config: config() },
    );
    const seconds = (performance.now() - start) / 1000;
    const cpu = cpuSeconds() - cpuStart;
    const integrated = m.items.filter((i) => i.status === "integrated").length;
    if (m.verdict?.verdict !== "approve" || integrated !== ITEMS) {
      throw new Error(`the --parallel ${parallel} mission ended ${m.status} (${m.verdict?.verdict ?? "no verdict"}) with ${integrated}/${ITEMS} integrated:\n${m.items.filter((i) => i.status !== "integrated").map((i) => `${i.id}: ${i.status}: ${i.reason ?? ""}`).join("\n")}`);
    }
    return { seconds, cpu, gitCalls };
  } finally {
    await repo.remove();
  }
}

export async function run(): Promise<void> {
  const load = loadavg()[0] ?? 0;
  const parallel = await mission(PARALLEL);
  const serial = await mission(1);
  const speedup = serial.seconds / parallel.seconds;
  const ideal = (ITEMS * SLEEP_MS) / 1000;
  const cpuPerItem = (parallel.cpu + serial.cpu) / (2 * ITEMS);
  console.log(`${ITEMS} items, agents sleeping ${SLEEP_MS} ms each; every mission approved with all items integrated`);
  console.log(`| agents at once | wall seconds | agent sleep alone | CPU seconds (naruto, git, agents) |\n|---|---|---|---|`);
  console.log(`| ${PARALLEL} (--parallel ${PARALLEL}) | ${parallel.seconds.toFixed(2)} | ${(ideal / PARALLEL).toFixed(2)} | ${parallel.cpu.toFixed(2)} |`);
  console.log(`| 1 (--parallel 1) | ${serial.seconds.toFixed(2)} | ${ideal.toFixed(2)} | ${serial.cpu.toFixed(2)} |`);
  console.log(`speedup ${speedup.toFixed(2)}× (ideal ${PARALLEL}×); ${cpus().length} cores, load average ${load.toFixed(1)} at the start`);
  console.log(`bench local parallel_seconds=${parallel.seconds.toFixed(2)}`);
  console.log(`bench local serial_seconds=${serial.seconds.toFixed(2)}`);
  console.log(`bench local speedup=${speedup.toFixed(2)}`);
  console.log(`bench local cpu_seconds_per_item=${cpuPerItem.toFixed(2)}`);
  console.log(`bench local git_processes_per_item=${((parallel.gitCalls + serial.gitCalls) / (2 * ITEMS)).toFixed(1)}`);
}
