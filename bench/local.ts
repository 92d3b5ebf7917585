/**
 * The local runner's parallelism (issue 4), its own cost per item, and its cost per item on a
 * large repository (issue 11 "Done when"), in that order (see {@link run}).
 *
 * 1. Parallelism: 16 items whose agents sleep 1 s, 4 at once and one at a time (each twice, in
 *    the order 4, 1, 1, 4: see {@link speedupOf}); the same agent run without naruto, alone and
 *    4 at once (_agents-together.ts), for what the agents cost each other; shell agents.
 * 2. naruto's own cost: 16 trivial items on a one-file repository, one at a time (CPU and git
 *    processes per item, the agent's sandbox included).
 * 3. Per-item cost: missions of 16, 64 and 256 trivial items (each agent writes one file) on a
 *    generated 2,500-file repository, one agent at a time so that wall time is cost, each next
 *    to the naive way measured in the same run: per item `git worktree add` + the same edit +
 *    `git add -A && git commit` + `git worktree remove`. Every attempt of naruto's gets a
 *    standalone work directory (a checkout of the 2,500 files), runs its agent in the sandbox,
 *    is read back by naruto's own git, checked, checkpointed, integrated and recorded; so is the
 *    naive loop's one checkout per item. The overhead is naruto's time per item beyond one
 *    checkout of the repository and its removal, measured in a row right before (see
 *    {@link checkoutCycleSeconds}).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { loadConfig, formatConfigErrors, type Config } from "../src/config/index.ts";
import { runLocalMission } from "../src/local/local-mission.ts";
import { silentProgress } from "../src/local/progress.ts";
import { SESSION_IDLE_MS } from "../src/git/git-session.ts";
import type { MissionEvent } from "../src/mission/events.ts";
import { chooseSandbox } from "../src/sandbox/choose.ts";
import type { Sandbox } from "../src/sandbox/sandbox.ts";
import { fakeAgentCommand, TEST_AGENT_READ } from "../test/support/agents/index.ts";
import { agentsTogether } from "./_agents-together.ts";
import { fileCreateMicros, fileSystemOf } from "./_file-system.ts";
import { createTestRepo, testGit, type TestRepo } from "../test/support/git-repo.ts";

const FILES = 2500;
/** `NARUTO_BENCH_SIZES=16,64` measures fewer sizes (a quick look; the 256/64 figure needs both). */
const SIZES = (process.env["NARUTO_BENCH_SIZES"] ?? "16,64,256")
  .split(",")
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
/**
 * `NARUTO_BENCH_COST_ONLY=1` skips the parallelism section (its speedups need an idle machine)
 * and measures naruto's own cost per item only: the trivial items and the 2,500-file missions.
 */
const COST_ONLY = process.env["NARUTO_BENCH_COST_ONLY"] === "1";
const TRIVIAL = 'mkdir -p "src/$NARUTO_ITEM" && echo "$NARUTO_ITEM" > "src/$NARUTO_ITEM/done.txt"';

function config(command: string, parallel: number): Config {
  const loaded = loadConfig(
    JSON.stringify({
      version: 1,
      agents: { default: { command, read: JSON.parse(TEST_AGENT_READ) as string[] } },
      queue: { batch: 8 },
      limits: { max_parallel: parallel, max_attempts: 1, item_timeout: "5m", max_items: 1000 },
    }),
  );
  if (!loaded.ok) throw new Error(formatConfigErrors(loaded.errors));
  return loaded.config;
}

function plan(items: number): string {
  return JSON.stringify({
    version: 1,
    title: `${items} independent items`,
    items: Array.from({ length: items }, (_, i) => ({ id: `item-${i}`, title: `item ${i}`, writes: [`src/item-${i}/`] })),
  });
}

/**
 * CPU seconds used so far by this process and its finished children (git, agents): Linux's
 * /proc/self/stat, else this process alone.
 */
function cpuSeconds(): number {
  const split = cpuSplit();
  return split.user + split.system + split.children;
}

/** This process's user and system CPU seconds, and its finished children's (Linux; else 0). */
function cpuSplit(): { user: number; system: number; children: number } {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    children = 0;
  }
  return { user: own.user / 1e6, system: own.system / 1e6, children };
}

interface Measure {
  readonly seconds: number;
  readonly cpu: number;
  /** Of `cpu`: naruto's own process (user, system) and its children (git, the sandbox, agents). */
  readonly split?: { readonly user: number; readonly system: number; readonly children: number };
  readonly gitProcesses: number;
  /** git processes by subcommand (`update-ref`, `cat-file`, …). */
  readonly bySubcommand?: ReadonlyMap<string, number>;
  /**
   * What the mission costs whatever its agents do: seconds from its start to its first attempt's
   * start, and from its last agent's exit to its end (checkpoint, integration, review, report).
   */
  readonly fixed?: { readonly start: number; readonly end: number };
}

/** The subcommand of a git call: its first argument that is not an option (`-c k=v` skipped). */
function subcommand(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "-c" || arg === "-C") i++;
    else if (!arg.startsWith("-")) return arg;
  }
  return "?";
}

/** A repository of 2,500 files in 50 folders, about 2 KB each. */
async function bigRepository(): Promise<TestRepo> {
  const files: Record<string, string> = { "README.md": "# bench\n" };
  for (let i = 0; i < FILES; i++) files[`lib/d${i % 50}/f${i}.txt`] = `file ${i}\n`.repeat(200);
  return createTestRepo(files);
}

/** One whole mission of `items` items: wall, CPU and git processes. */
async function mission(repo: TestRepo, items: number, parallel: number, command: string, cacheHome: string): Promise<Measure> {
  // git processes, not calls: ref writes share long-running processes (src/git/ref-sessions.ts).
  let gitProcesses = 0;
  const bySubcommand = new Map<string, number>();
  const git = testGit((args) => {
    gitProcesses++;
    const sub = subcommand(args);
    bySubcommand.set(sub, (bySubcommand.get(sub) ?? 0) + 1);
  });
  const start = performance.now();
  let firstStart: number | null = null;
  let lastExit = start;
  const progress = {
    ...silentProgress,
    event(e: MissionEvent) {
      if (e.type === "attempt_started") firstStart ??= performance.now();
      if (e.type === "agent_exited") lastExit = performance.now();
    },
  };
  const cpuStart = cpuSplit();
  const m = await runLocalMission(
    {
      git,
      env: { PATH: process.env.PATH, HOME: tmpdir(), XDG_CACHE_HOME: cacheHome },
      now: () => new Date(),
      randomId: () => `b${items}x${parallel}${Math.random().toString(36).slice(2, 6)}`,
      progress,
      nodePath: process.execPath,
      cwd: repo.dir,
    },
    {
      repoDir: repo.dir,
      planText: plan(items),
      task: null,
      baseRef: "HEAD",
      agentCommand: null,
      parallel,
      verify: null,
      strict: false,
      config: config(command, parallel),
    },
  );
  const end = performance.now();
  const seconds = (end - start) / 1000;
  // The long-running git processes (src/git/git-session.ts) end once idle: their CPU counts
  // (a finished child's only) when they are gone, so the mission is charged for them.
  await new Promise((resolve) => setTimeout(resolve, SESSION_IDLE_MS + 1000));
  const cpuEnd = cpuSplit();
  const split = { user: cpuEnd.user - cpuStart.user, system: cpuEnd.system - cpuStart.system, children: cpuEnd.children - cpuStart.children };
  const cpu = split.user + split.system + split.children;
  const fixed = { start: ((firstStart ?? start) - start) / 1000, end: (end - lastExit) / 1000 };
  const integrated = m.items.filter((i) => i.status === "integrated").length;
  if (m.verdict?.verdict !== "approve" || integrated !== items) {
    throw new Error(
      `the ${items}-item mission ended ${m.status} (${m.verdict?.verdict ?? "no verdict"}) with ${integrated}/${items} integrated:\n${m.items
        .filter((i) => i.status !== "integrated")
        .slice(0, 5)
        .map((i) => `${i.id}: ${i.status}: ${i.reason ?? ""}`)
        .join("\n")}`,
    );
  }
  return { seconds, cpu, split, gitProcesses, bySubcommand, fixed };
}

/** The naive way, per item: a linked work tree, the same edit, a commit, the work tree removed. */
async function naiveLoop(repo: TestRepo, items: number): Promise<Measure> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-bench-naive-"));
  let gitProcesses = 0;
  const run = (args: string[], cwd: string) => {
    gitProcesses++;
    return repo.git({ args, cwd });
  };
  const start = performance.now();
  const cpuStart = cpuSeconds();
  try {
    for (let i = 0; i < items; i++) {
      const tree = join(dir, `item-${i}`);
      await run(["worktree", "add", "-q", "-b", `naive-${items}-${i}`, tree, "HEAD"], repo.dir);
      spawnSync("sh", ["-c", TRIVIAL], { cwd: tree, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NARUTO_ITEM: `item-${i}` } });
      await run(["add", "-A"], tree);
      await run(["commit", "-q", "-m", `item ${i}`], tree);
      await run(["worktree", "remove", "--force", tree], repo.dir);
    }
    return { seconds: (performance.now() - start) / 1000, cpu: cpuSeconds() - cpuStart, gitProcesses };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * One checkout of the repository into an empty folder and its removal, the cost every attempt
 * pays by design: the mean of `cycles` in a row, measured right before the mission it is
 * compared with. In a row, because a file system that has just deleted 2,500 files writes the
 * next 2,500 more slowly (here, 0.2 s for a first checkout, 0.5-0.9 s in a row), and a mission
 * checks out and deletes one work directory per item.
 */
async function checkoutCycleSeconds(repo: TestRepo, cycles: number): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-bench-checkout-"));
  try {
    const start = performance.now();
    for (let i = 0; i < cycles; i++) {
      const tree = join(dir, String(i));
      await mkdir(tree);
      await repo.git({ args: ["--work-tree", tree, "read-tree", "--reset", "-u", "HEAD"], cwd: repo.dir, env: { GIT_INDEX_FILE: join(dir, `index-${i}`) } });
      await rm(tree, { recursive: true, force: true });
      await rm(join(dir, `index-${i}`), { force: true });
    }
    return (performance.now() - start) / 1000 / cycles;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * 16 items of `command`, 4 at once against one at a time, measured in the order 4, 1, 1, 4 and
 * each side's mean taken: this machine's disk drifts (a 16-item mission ran 0.3-0.5 s slower
 * right after 20,000 files were written and deleted, as the 2,500-file missions above do), and
 * a single pair measured back to back charges the drift to whichever side runs first.
 */
async function speedupOf(
  repo: TestRepo,
  command: string,
  cacheHome: string,
): Promise<{ parallel: number; serial: number; speedup: number; fixed: number; alone: number; each: string }> {
  const first4 = await mission(repo, 16, 4, command, cacheHome);
  const first1 = await mission(repo, 16, 1, command, cacheHome);
  const second1 = await mission(repo, 16, 1, command, cacheHome);
  const second4 = await mission(repo, 16, 4, command, cacheHome);
  const fixedOf = (m: Measure) => (m.fixed?.start ?? 0) + (m.fixed?.end ?? 0);
  const parallel = (first4.seconds + second4.seconds) / 2;
  const serial = (first1.seconds + second1.seconds) / 2;
  const fixed = (fixedOf(first4) + fixedOf(first1) + fixedOf(second1) + fixedOf(second4)) / 4;
  const alone = (serial - (fixedOf(first1) + fixedOf(second1)) / 2) / 16;
  const each = [first4, first1, second1, second4].map((m) => m.seconds.toFixed(2)).join(", ");
  return { parallel, serial, speedup: serial / parallel, fixed, alone, each };
}

const per = (m: Measure, n: number) => ({ wall: m.seconds / n, cpu: m.cpu / n, git: m.gitProcesses / n });

export async function run(): Promise<void> {
  const sandbox = await chooseSandbox({ mode: "auto", env: process.env });
  const cacheHome = await mkdtemp(join(tmpdir(), "naruto-bench-cache-"));
  try {
    console.log(
      `agents run in: ${sandbox.description}; ${cpus().length} cores, load ${(loadavg()[0] ?? 0).toFixed(1)}; temporary folder on ${fileSystemOf(tmpdir())}`,
    );
    // The small missions first, on a disk the bench has not churned: the 2,500-file section
    // deletes about 650,000 files, after which an ext4 without a journal makes each file slowly
    // for minutes (_file-system.ts); after it, the 4-slot missions ran 0.3 s slower.
    await parallelismAndOwnCost(sandbox, cacheHome);
    await perItemCost(cacheHome);
  } finally {
    await rm(cacheHome, { recursive: true, force: true });
  }
}

async function perItemCost(cacheHome: string): Promise<void> {
  const repo = await bigRepository();
  try {
    const first = await checkoutCycleSeconds(repo, 1);
    console.log(`${FILES}-file repository; a first checkout of it (and its removal): ${first.toFixed(3)} s`);
    console.log(
      "| items | naruto wall s/item | CPU s/item | git processes/item | checkout in a row s | overhead beyond it s/item | naive wall s/item | naive CPU s/item | naruto/naive |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|");
    const results = new Map<number, ReturnType<typeof per>>();
    // Below zero when naruto beats a checkout in a row: the next work directory overlaps the last checkpoint.
    let worstOverhead = Number.NEGATIVE_INFINITY;
    for (const items of SIZES) {
      const checkout = await checkoutCycleSeconds(repo, Math.min(items, 16));
      const measured = await mission(repo, items, 1, TRIVIAL, cacheHome);
      const naruto = per(measured, items);
      const naive = per(await naiveLoop(repo, items), items);
      results.set(items, naruto);
      const overhead = naruto.wall - checkout;
      worstOverhead = Math.max(worstOverhead, overhead);
      console.log(
        `| ${items} | ${naruto.wall.toFixed(3)} | ${naruto.cpu.toFixed(3)} | ${naruto.git.toFixed(1)} | ${checkout.toFixed(3)} | ${overhead.toFixed(3)} | ${naive.wall.toFixed(3)} | ${naive.cpu.toFixed(3)} | ${(naruto.wall / naive.wall).toFixed(2)} |`,
      );
      const where = [...(measured.bySubcommand ?? [])].sort((a, b) => b[1] - a[1]).map(([sub, n]) => `${sub} ${(n / items).toFixed(2)}`);
      console.log(`  git processes per item by subcommand: ${where.join(", ")}`);
      console.log(`bench local items_${items}_wall_seconds_per_item=${naruto.wall.toFixed(3)}`);
      console.log(`bench local items_${items}_cpu_seconds_per_item=${naruto.cpu.toFixed(3)}`);
      console.log(`bench local items_${items}_git_processes_per_item=${naruto.git.toFixed(1)}`);
      console.log(`bench local items_${items}_checkout_seconds=${checkout.toFixed(3)}`);
      console.log(`bench local items_${items}_overhead_seconds_per_item=${overhead.toFixed(3)}`);
      console.log(`bench local items_${items}_naive_wall_seconds_per_item=${naive.wall.toFixed(3)}`);
      console.log(`bench local items_${items}_vs_naive=${(naruto.wall / naive.wall).toFixed(2)}`);
    }
    if (Number.isFinite(worstOverhead)) console.log(`overhead beyond a checkout: up to ${worstOverhead.toFixed(3)} s per item (target ≤ 0.15)`);
    const [at64, at256] = [results.get(64), results.get(256)];
    if (at64 !== undefined && at256 !== undefined) {
      const linear = (at256.wall * 256) / (at64.wall * 64);
      console.log(`cost of 256 items over 64: ${linear.toFixed(2)} (linear is 4; target ≤ 4.5)`);
      console.log(`bench local cost_256_over_64=${linear.toFixed(2)}`);
    }
    console.log(`bench local first_checkout_seconds=${first.toFixed(3)}`);
  } finally {
    await repo.remove();
  }
}

async function parallelismAndOwnCost(sandbox: Sandbox, cacheHome: string): Promise<void> {
  // Parallelism: 16 items whose agents each sleep 1 s.
  const sleeping = `NARUTO_FAKE_SLEEP_MS=1000 ${fakeAgentCommand("slow")}`;
  const small = await createTestRepo({ "README.md": "# bench\n" });
  try {
    if (!COST_ONLY) await parallelism(small, sandbox, sleeping, cacheHome);
    // What naruto itself costs per item: trivial agents on a one-file repository (no checkout to speak of).
    const fileCost = fileCreateMicros(cacheHome);
    const trivialMission = await mission(small, 16, 1, TRIVIAL, cacheHome);
    const trivial = per(trivialMission, 16);
    const ms = (seconds: number) => ((seconds * 1000) / 16).toFixed(0);
    const split = trivialMission.split;
    const where =
      split === undefined ? "" : ` (naruto's process ${ms(split.user)} ms user + ${ms(split.system)} ms system, its children ${ms(split.children)} ms)`;
    console.log(
      `16 trivial items on a one-file repository, one at a time: ${trivial.wall.toFixed(3)} s, ${trivial.cpu.toFixed(3)} CPU s${where} and ${trivial.git.toFixed(1)} git processes per item (targets ≤ 0.1 CPU s, ≤ 10 processes)`,
    );
    console.log(`bench local trivial_cpu_seconds_per_item=${trivial.cpu.toFixed(3)}`);
    console.log(`bench local trivial_git_processes_per_item=${trivial.git.toFixed(1)}`);
    const bySubcommand = [...(trivialMission.bySubcommand ?? [])].sort((a, b) => b[1] - a[1]).map(([sub, n]) => `${sub} ${(n / 16).toFixed(2)}`);
    console.log(`  git processes per item by subcommand: ${bySubcommand.join(", ")}`);
    // The disk's part in it (_file-system.ts): what one file costs to make where the work directories are.
    console.log(
      `  making an empty file where the work directories are cost ${fileCost.toFixed(0)} µs of CPU right before (the item makes about a hundred files and folders)`,
    );
    console.log(`bench local file_create_us=${fileCost.toFixed(0)}`);
  } finally {
    await small.remove();
  }
}

/** 16 items whose agents each sleep 1 s, 4 at once against one at a time; what the agents cost each other. */
async function parallelism(small: TestRepo, sandbox: Sandbox, sleeping: string, cacheHome: string): Promise<void> {
  const nodeAgents = await speedupOf(small, sleeping, cacheHome);
  console.log(
    `16 items sleeping 1 s: ${nodeAgents.parallel.toFixed(2)} s with 4 at once, ${nodeAgents.serial.toFixed(2)} s one at a time (means of 2; in the order 4, 1, 1, 4: ${nodeAgents.each} s): speedup ${nodeAgents.speedup.toFixed(2)}× (ideal 4×)`,
  );
  console.log(`bench local speedup=${nodeAgents.speedup.toFixed(2)}`);
  // The ratio's ceiling: with these fixed costs, 16 items one at a time against 4 waves of 4
  // in which each item takes what it took alone (its agent's own start-up included: a
  // Node.js agent in the sandbox takes 1.1-1.25 s to sleep 1 s).
  const ceiling = (nodeAgents.fixed + 16 * nodeAgents.alone) / (nodeAgents.fixed + 4 * nodeAgents.alone);
  console.log(
    `  fixed cost of a mission (start to its first agent, last agent's exit to its end): ${nodeAgents.fixed.toFixed(2)} s; an item one at a time: ${nodeAgents.alone.toFixed(2)} s; with these, the best speedup 4 slots allow is ${ceiling.toFixed(2)}×`,
  );
  console.log(`bench local fixed_seconds=${nodeAgents.fixed.toFixed(2)}`);
  console.log(`bench local item_alone_seconds=${nodeAgents.alone.toFixed(2)}`);
  console.log(`bench local speedup_ceiling=${ceiling.toFixed(2)}`);
  // What four of these agents cost each other whatever runs them: each wave of 4 loses that much.
  const agents = await agentsTogether({
    sandbox,
    repo: small,
    command: sleeping,
    workRoot: join(cacheHome, "naruto"),
    readOnly: JSON.parse(TEST_AGENT_READ) as string[],
  });
  const lost = Math.max(0, agents.together - agents.alone);
  const ceilingWithAgents = (nodeAgents.fixed + 16 * nodeAgents.alone) / (nodeAgents.fixed + 4 * (nodeAgents.alone + lost));
  console.log(
    `  the same agent in the sandbox without naruto: ${agents.alone.toFixed(2)} s alone, ${agents.together.toFixed(2)} s for 4 at once (means of 2, in the order 1, 4, 4, 1); with the ${lost.toFixed(2)} s each wave of 4 loses to that, the best speedup is ${ceilingWithAgents.toFixed(2)}×`,
  );
  console.log(`bench local agents_alone_seconds=${agents.alone.toFixed(2)}`);
  console.log(`bench local agents_together_seconds=${agents.together.toFixed(2)}`);
  console.log(`bench local speedup_ceiling_with_agents=${ceilingWithAgents.toFixed(2)}`);
  // The same with agents that are a shell sleeping 1 s: naruto's own cost, without a Node.js
  // agent's start-up (about 0.1 CPU s each) competing for the same cores.
  const shell = await speedupOf(small, `sleep 1 && ${TRIVIAL}`, cacheHome);
  console.log(
    `16 shell agents sleeping 1 s: ${shell.parallel.toFixed(2)} s with 4 at once, ${shell.serial.toFixed(2)} s one at a time (${shell.each} s): speedup ${shell.speedup.toFixed(2)}×`,
  );
  console.log(`bench local shell_speedup=${shell.speedup.toFixed(2)}`);
}
