/**
 * `npm run bench -- schedule`: how close critical-path list scheduling (what naruto does) comes to
 * the lower bound max(critical path, total work ÷ slots), against wave-by-wave (barrier)
 * scheduling, on random graphs with heavy-tailed durations (DESIGN.md §12). Seeded: every run
 * prints the same figures.
 */
import type { WorkNode } from "../src/plan/ranks.ts";
import { simulate, simulateWaves } from "../src/mission/index.ts";
import { seededRandom } from "../test/support/seeded-random.ts";

const SIZES = [200, 500, 1_000, 2_000];
const SLOTS = [4, 8, 16, 32, 64];
const SEEDS = [1, 2, 3];

type Random = () => number;

const prng: (seed: number) => Random = seededRandom;

function normal(random: Random): number {
  // Box–Muller; 1 - random() is never 0.
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Minutes an agent takes: heavy-tailed, as real agent runs are. */
const DURATIONS: Record<string, (random: Random) => number> = {
  // Median 10 minutes, a long right tail.
  lognormal: (random) => Math.exp(Math.log(10) + 1.0 * normal(random)),
  // Pareto with α = 1.5 (infinite variance) from 2 minutes, cut at a 4-hour attempt timeout.
  pareto: (random) => Math.min(2 / (1 - random()) ** (1 / 1.5), 240),
};

/** Graph shapes: who an item may depend on (earlier items only, so there is never a cycle). */
const SHAPES: Record<string, (random: Random, i: number, n: number) => number[]> = {
  // Mostly independent items with a few far-reaching edges (typical fan-out plans).
  wide: (random, i) => (i === 0 || random() < 0.6 ? [] : pick(random, 0, i, 1 + Math.floor(random() * 2))),
  // Ten layers; each item depends on 1–3 items of the layer before.
  layered: (random, i, n) => {
    const layer = Math.floor((i * 10) / n);
    if (layer === 0) return [];
    const from = Math.ceil(((layer - 1) * n) / 10);
    return pick(random, from, Math.ceil((layer * n) / 10), 1 + Math.floor(random() * 3));
  },
  // Anything goes: 1–3 dependencies anywhere earlier.
  random: (random, i) => (i === 0 ? [] : pick(random, 0, i, 1 + Math.floor(random() * 3))),
  // Long chains: 1–2 dependencies among the previous 30 items.
  deep: (random, i) => (i === 0 ? [] : pick(random, Math.max(0, i - 30), i, 1 + Math.floor(random() * 2))),
};

function pick(random: Random, from: number, to: number, count: number): number[] {
  const chosen = new Set<number>();
  for (let k = 0; k < count; k++) chosen.add(from + Math.floor(random() * (to - from)));
  return [...chosen];
}

interface Case {
  readonly shape: string;
  readonly durations: string;
  readonly size: number;
  readonly slots: number;
  readonly list: number;
  readonly waves: number;
  /** List scheduling when estimates are off by a lognormal factor (σ = 0.5) of the real time. */
  readonly noisy: number;
}

function measure(shape: string, durations: string, size: number, slots: number, seed: number): Case {
  const random = prng(seed * 1_000_003 + size * 101 + slots);
  const draw = DURATIONS[durations] ?? (() => 1);
  const depsOf = SHAPES[shape] ?? (() => []);
  const nodes: WorkNode[] = [];
  for (let i = 0; i < size; i++) nodes.push({ id: `n${i}`, estimate: draw(random), deps: depsOf(random, i, size).map((d) => `n${d}`) });
  const guessed = nodes.map((n) => ({ ...n, estimate: n.estimate * Math.exp(0.5 * normal(random)) }));
  const real = new Map(nodes.map((n) => [n.id, n.estimate]));
  const ratio = (s: { makespan: number; lowerBound: number }): number => s.makespan / s.lowerBound;
  return {
    shape,
    durations,
    size,
    slots,
    list: ratio(simulate({ nodes, slots })),
    waves: ratio(simulateWaves({ nodes, slots })),
    noisy: ratio(simulate({ nodes: guessed, slots, durations: real })),
  };
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
const worst = (xs: readonly number[]): number => Math.max(...xs);
const fmt = (x: number): string => x.toFixed(3);

/** Runs every case and prints a table per graph shape and slot count, then the figures. */
export async function run(): Promise<void> {
  const cases: Case[] = [];
  for (const shape of Object.keys(SHAPES))
    for (const durations of Object.keys(DURATIONS))
      for (const size of SIZES) for (const slots of SLOTS) for (const seed of SEEDS) cases.push(measure(shape, durations, size, slots, seed));

  console.log(`${cases.length} random graphs (${SIZES.join("/")} items, ${Object.keys(DURATIONS).join("/")} durations, ${SEEDS.length} seeds each)`);
  console.log("makespan ÷ max(critical path, work ÷ slots); 1.000 is optimal");
  console.log(
    `${"shape".padEnd(8)} ${"slots".padStart(5)}  ${"list mean".padStart(9)} ${"worst".padStart(6)}  ${"waves mean".padStart(10)} ${"worst".padStart(6)}`,
  );
  for (const shape of Object.keys(SHAPES)) {
    for (const slots of SLOTS) {
      const group = cases.filter((c) => c.shape === shape && c.slots === slots);
      const [list, waves] = [group.map((c) => c.list), group.map((c) => c.waves)];
      console.log(
        `${shape.padEnd(8)} ${String(slots).padStart(5)}  ${fmt(mean(list)).padStart(9)} ${fmt(worst(list)).padStart(6)}  ${fmt(mean(waves)).padStart(10)} ${fmt(worst(waves)).padStart(6)}`,
      );
    }
  }
  const [list, waves, noisy] = [cases.map((c) => c.list), cases.map((c) => c.waves), cases.map((c) => c.noisy)];
  console.log(`waves ÷ list makespan, mean: ${fmt(mean(cases.map((c) => c.waves / c.list)))}`);
  console.log(`bench schedule list_mean_ratio=${fmt(mean(list))}`);
  console.log(`bench schedule list_worst_ratio=${fmt(worst(list))}`);
  console.log(`bench schedule waves_mean_ratio=${fmt(mean(waves))}`);
  console.log(`bench schedule waves_worst_ratio=${fmt(worst(waves))}`);
  console.log(`bench schedule list_noisy_estimates_mean_ratio=${fmt(mean(noisy))}`);
  console.log(`bench schedule list_noisy_estimates_worst_ratio=${fmt(worst(noisy))}`);
}
