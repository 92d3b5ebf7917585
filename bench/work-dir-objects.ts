/**
 * What showing a work directory only its start commit's objects costs (issue 31, part 8), on a
 * generated large repository: `NARUTO_BENCH_FILES` files (default 50,000, about 4 KB of text
 * each) in 250 folders, with `NARUTO_BENCH_COMMITS` commits of history (default 2,000, each
 * changing 10 files), packed as `git repack -a -d` packs it. Measured, each the mean of 3:
 *
 * - the pack of the start commit and its tree (`pack-objects --revs` with `--shallow`), made once
 *   per mission and start commit (src/sandbox/start-objects.ts);
 * - the pack a later start commit adds (ten commits of the mission's later: `<commit> ^<root>`);
 * - for scale, a copy of the whole object store (`cp -a`), which would carry every unreachable
 *   object along (what the pack leaves out); a copy of the start commit's objects for every
 *   work directory would cost the first figure per work directory instead of per mission;
 * - what every work directory pays anyway: one checkout of the start commit (`read-tree -u`),
 *   which the pack is made beside.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { readFileSync, writeFileSync } from "node:fs";
import { startObjects } from "../src/sandbox/start-objects.ts";
import { testGit } from "../test/support/git-repo.ts";

const FILES = Number(process.env["NARUTO_BENCH_FILES"] ?? "50000");
const COMMITS = Number(process.env["NARUTO_BENCH_COMMITS"] ?? "2000");
const ROUNDS = 3;

/** CPU seconds of this process's finished children (Linux). */
function childCpu(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** Seeded text that compresses like source code: lines of words from a small vocabulary. */
function textOf(seed: number, lines: number): string {
  const words = [
    "const",
    "return",
    "function",
    "import",
    "export",
    "value",
    "items",
    "config",
    "error",
    "await",
    "async",
    "string",
    "number",
    "=>",
    "{",
    "}",
    "(",
    ")",
    ";",
  ];
  let x = (seed * 2654435761) >>> 0;
  const out: string[] = [];
  for (let l = 0; l < lines; l++) {
    const n = 4 + (x % 8);
    const line: string[] = [];
    for (let w = 0; w < n; w++) {
      x = (x * 1103515245 + 12345) >>> 0;
      line.push(words[x % words.length]!);
    }
    out.push(`${"  ".repeat(l % 4)}${line.join(" ")} // ${seed}.${l}`);
  }
  return `${out.join("\n")}\n`;
}

/** A repository of FILES files and COMMITS commits, written with one fast-import stream, then packed. */
async function generate(dir: string): Promise<void> {
  spawnSync("git", ["init", "-q", "-b", "main", dir]);
  const fi = spawn("git", ["fast-import", "--quiet"], { cwd: dir, stdio: ["pipe", "ignore", "inherit"] });
  const write = (s: string) => new Promise<void>((done) => (fi.stdin.write(s) ? done() : fi.stdin.once("drain", done)));
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const path = (i: number) => `lib/d${i % 250}/f${i}.ts`;
  let time = 1_700_000_000;
  const commit = async (message: string, files: [string, string][]) => {
    await write(`commit refs/heads/main\ncommitter Bench <bench@example.test> ${time++} +0000\n${data(message)}`);
    for (const [p, text] of files) await write(`M 100644 inline ${p}\n${data(text)}`);
  };
  const first: [string, string][] = [];
  for (let i = 0; i < FILES; i++) first.push([path(i), textOf(i, 80)]);
  await commit("initial", first);
  for (let c = 1; c <= COMMITS; c++) {
    const files: [string, string][] = [];
    for (let k = 0; k < 10; k++) {
      const i = (c * 7919 + k * 104729) % FILES;
      files.push([path(i), textOf(i, 80) + textOf(c * 31 + k, 3)]);
    }
    await commit(`change ${c}`, files);
  }
  fi.stdin.end();
  await new Promise((done) => fi.on("close", done));
  spawnSync("git", ["repack", "-a", "-d", "-q"], { cwd: dir });
  spawnSync("git", ["reset", "-q", "--hard"], { cwd: dir });
}

/** Runs a command; fails unless it exits 0. */
function exec(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  return new Promise((done, fail) =>
    spawn(command, args, { ...options, stdio: ["ignore", "ignore", "inherit"] }).on("close", (code) =>
      code === 0 ? done() : fail(new Error(`${command} ${args.join(" ")}: exit ${code}`)),
    ),
  );
}

async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

async function measure<T>(what: () => Promise<T>): Promise<{ seconds: number; cpu: number; result: T }> {
  const cpu = childCpu();
  const own = process.cpuUsage();
  const start = performance.now();
  const result = await what();
  const used = process.cpuUsage(own);
  return { seconds: (performance.now() - start) / 1000, cpu: childCpu() - cpu + (used.user + used.system) / 1e6, result };
}

async function mean(what: (round: number) => Promise<unknown>): Promise<{ seconds: number; cpu: number }> {
  let seconds = 0;
  let cpu = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const m = await measure(() => what(r));
    seconds += m.seconds;
    cpu += m.cpu;
  }
  return { seconds: seconds / ROUNDS, cpu: cpu / ROUNDS };
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "naruto-bench-objects-"));
  try {
    const made = await measure(() => generate(join(dir, "repo")));
    const repo = join(dir, "repo");
    const git = testGit();
    const head = spawnSync("git", ["rev-parse", "HEAD"], { cwd: repo, encoding: "utf8" }).stdout.trim();
    const store = await sizeOf(join(repo, ".git", "objects"));
    console.log(`generated ${FILES} files, ${COMMITS + 1} commits in ${made.seconds.toFixed(1)} s; object store ${(store / 1e6).toFixed(0)} MB`);

    const root = await mean((r) => startObjects({ git, repoDir: repo, folder: join(dir, `mission-${r}`), commit: head }));
    const pack = await sizeOf(join(dir, "mission-0", ".objects"));
    // The mission integrates a commit of ten files at a time; a retry starts from the newer head.
    const later: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < 10; k++) writeFileSync(join(repo, `lib/d${k}/queue-${r}-${k}.ts`), textOf(r * 10 + k, 40));
      spawnSync("git", ["add", "-A"], { cwd: repo });
      spawnSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.test", "commit", "-q", "-m", `queue ${r}`], { cwd: repo });
      later.push(spawnSync("git", ["rev-parse", "HEAD"], { cwd: repo, encoding: "utf8" }).stdout.trim());
    }
    const added = await mean((r) => startObjects({ git, repoDir: repo, folder: join(dir, "mission-0"), commit: later[r]! }));
    const copy = await mean((r) => exec("cp", ["-a", join(repo, ".git", "objects"), join(dir, `copy-${r}`)]));
    const checkout = await mean(async (r) => {
      const tree = join(dir, `checkout-${r}`);
      await mkdir(tree);
      await exec("git", ["--work-tree", tree, "read-tree", "--reset", "-u", head], {
        cwd: repo,
        env: { ...process.env, GIT_INDEX_FILE: join(dir, `index-${r}`) },
      });
    });
    console.log("| what | wall s | CPU s |");
    console.log("|---|---|---|");
    console.log(
      `| pack of the start commit and its tree (once per mission and start commit; ${(pack / 1e6).toFixed(0)} MB) | ${root.seconds.toFixed(2)} | ${root.cpu.toFixed(2)} |`,
    );
    console.log(`| pack a later start commit adds | ${added.seconds.toFixed(3)} | ${added.cpu.toFixed(3)} |`);
    console.log(
      `| for scale: a copy of the whole object store, unreachable objects and all (cp -a, ${(store / 1e6).toFixed(0)} MB) | ${copy.seconds.toFixed(2)} | ${copy.cpu.toFixed(2)} |`,
    );
    console.log(`| one checkout of the start commit (every work directory) | ${checkout.seconds.toFixed(2)} | ${checkout.cpu.toFixed(2)} |`);
    console.log(`bench work-dir-objects store_mb=${(store / 1e6).toFixed(0)}`);
    console.log(`bench work-dir-objects start_pack_mb=${(pack / 1e6).toFixed(0)}`);
    console.log(`bench work-dir-objects start_pack_seconds=${root.seconds.toFixed(2)}`);
    console.log(`bench work-dir-objects start_pack_cpu_seconds=${root.cpu.toFixed(2)}`);
    console.log(`bench work-dir-objects added_pack_seconds=${added.seconds.toFixed(3)}`);
    console.log(`bench work-dir-objects full_copy_seconds=${copy.seconds.toFixed(2)}`);
    console.log(`bench work-dir-objects checkout_seconds=${checkout.seconds.toFixed(2)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
