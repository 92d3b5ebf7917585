/**
 * `npm run chaos -- [--seeds N] [--seed S] [--first F] [--items K] [--jobs J] [--calm]`: the fault
 * campaign (issue 18, test/e2e/chaos/). Runs one whole mission per seed under random GitHub
 * faults and App kills, then checks GitHub's state, and prints one line per seed and a total:
 *
 *   chaos 7 ok (done, 8/8 integrated, 9 runs, 1 sweeps, 14 faults, 1 kills, 2 redelivered)
 *   chaos 12 FAIL: item f3 is integrated with 2 commits on the queue
 *   chaos 2 passed, 1 failed
 *
 * A failing seed's fault log and story go to stderr after its line; `--seed S` replays it.
 * Seeds F … F+N-1 (default 1 … 10), items K (default 8); `--calm` runs the same missions with no
 * fault and no kill (the control); `--jobs J` runs J seeds at once. Exits 1 when a seed failed.
 */
import { runSeed, type SeedResult } from "../test/e2e/chaos/campaign.ts";
import { NO_FAULTS } from "../test/support/chaos/injector.ts";

function option(args: readonly string[], name: string): number | undefined {
  const at = args.indexOf(name);
  if (at === -1) return undefined;
  const value = Number(args[at + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} takes a whole number, not ${JSON.stringify(args[at + 1])}`);
  return value;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2).filter((a) => a !== "--");
  const known = new Set(["--seeds", "--seed", "--first", "--items", "--jobs", "--calm"]);
  const unknown = args.filter((a, i) => a.startsWith("--") && !known.has(a) && !(known.has(args[i - 1] ?? "") && args[i - 1] !== "--calm"));
  if (unknown.length > 0) {
    process.stderr.write(`unknown option ${unknown.join(", ")}; usage: npm run chaos -- [--seeds N] [--seed S] [--first F] [--items K] [--jobs J] [--calm]\n`);
    return 2;
  }
  const one = option(args, "--seed");
  const first = option(args, "--first") ?? 1;
  const seeds = one !== undefined ? [one] : Array.from({ length: option(args, "--seeds") ?? 10 }, (_, i) => first + i);
  const items = option(args, "--items") ?? 8;
  // The control: the same missions with no fault and no kill (the invariants must hold there too).
  const calm = args.includes("--calm") ? { rates: NO_FAULTS, killRate: 0, commandKillRate: 0 } : {};
  let failed = 0;
  const report = (result: SeedResult) => {
    const seed = result.seed;
    if (result.failures.length === 0) {
      process.stdout.write(`chaos ${seed} ok (${result.summary})\n`);
      return;
    }
    failed++;
    const [first = "", ...more] = result.failures;
    process.stdout.write(`chaos ${seed} FAIL: ${first.split("\n")[0]}${more.length > 0 ? ` (and ${more.length} more)` : ""}\n`);
    const faults = result.faults.map((f) => `  #${f.n} ${f.what} (${f.occurrence}): ${f.fault}`).join("\n");
    process.stderr.write(
      `chaos ${seed}: ${result.summary}\n${result.failures.map((f) => `  - ${f}`).join("\n")}\n story: ${result.story.join("; ") || "none"}\n faults:\n${faults || "  none"}\n`,
    );
  };
  // Seeds side by side (--jobs): each has its own fake, App process and simulator; lines come as seeds end.
  const waiting = [...seeds];
  const worker = async () => {
    for (let seed = waiting.shift(); seed !== undefined; seed = waiting.shift()) report(await runSeed({ seed, items, ...calm }));
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(option(args, "--jobs") ?? 1, seeds.length)) }, worker));
  process.stdout.write(`chaos ${seeds.length - failed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  return 2;
});
