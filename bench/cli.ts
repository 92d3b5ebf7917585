/**
 * `npm run bench -- cli`: how long `naruto --help` takes to start, as a user runs it
 * (`node bin/naruto.js --help`: the check that build/ is current, then build/cli.js), against
 * Node.js doing nothing (`node -e 0`) measured in the same run. The two alternate, so that a
 * busy machine slows both alike; the figures are medians of {@link RUNS} runs each.
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const RUNS = 20;
const BIN = fileURLToPath(new URL("../bin/naruto.js", import.meta.url));

function timed(args: readonly string[]): number {
  const start = performance.now();
  const run = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`node ${args.join(" ")} exited with ${run.status}: ${run.stderr}`);
  return ms;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function run(): Promise<void> {
  // Once untimed: rebuilds build/ if the sources are newer, and warms the file cache.
  timed([BIN, "--help"]);
  const naruto: number[] = [];
  const node: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    naruto.push(timed([BIN, "--help"]));
    node.push(timed(["-e", "0"]));
  }
  const start = median(naruto);
  const bare = median(node);
  console.log(`${RUNS} runs each, alternating; Node.js ${process.version}; ${cpus().length} cores, load ${(loadavg()[0] ?? 0).toFixed(1)}`);
  console.log("| command | median ms | min ms | max ms |");
  console.log("|---|---|---|---|");
  for (const [name, xs] of [
    ["node bin/naruto.js --help", naruto],
    ["node -e 0", node],
  ] as const) {
    console.log(`| \`${name}\` | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`);
  }
  console.log(`bench cli start_ms=${start.toFixed(0)}`);
  console.log(`bench cli node_ms=${bare.toFixed(0)}`);
  console.log(`bench cli ratio_vs_node=${(start / bare).toFixed(2)}`);
}
