/**
 * `npm run bench -- plan`: checking a plan (parse + validate + conflicts + proof + schedule) on
 * plans of 1,000 and 10,000 items with about 5 paths each, against a straightforward all-pairs
 * overlap check measured in the same run (DESIGN.md §12).
 *
 * Bench machines are shared: the naruto figures are the best of {@link RUNS} runs, and the
 * check alone and the independent proof check are also given in CPU time of this process
 * (`process.cpuUsage`, garbage-collector threads included), which a busy machine inflates far
 * less than wall-clock time.
 */
import { performance } from "node:perf_hooks";
import { simulate } from "../src/mission/simulate.ts";
import { checkPlan, defaultPlanLimits, verifyProof } from "../src/plan/index.ts";
import { normalizePath, type RepoPath } from "../src/plan/paths.ts";

const RUNS = 5;

interface RawItem {
  id: string;
  writes: string[];
  after: string[];
  estimate: string;
}

/** A seeded PRNG (mulberry32) so every run checks the same plans. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A realistic tree: packages with modules with files; most items own files of one module, some
 * own a whole module subtree, a few touch shared files (an index, a changelog) — the conflicts.
 */
export function generatePlan(items: number, seed = 1): RawItem[] {
  const rand = prng(seed);
  const pick = (n: number) => Math.floor(rand() * n);
  const packages = Math.max(4, Math.round(items / 250));
  const modules = 25;
  const plan: RawItem[] = [];
  for (let i = 0; i < items; i++) {
    const pkg = `packages/p${pick(packages)}`;
    const mod = `${pkg}/src/m${i % modules}-${Math.floor(i / modules)}`;
    const writes: string[] = [];
    if (rand() < 0.05) writes.push(`${mod}/`);
    while (writes.length < 4) writes.push(`${mod}/f${writes.length}-${i}.ts`);
    writes.push(rand() < 0.01 ? `${pkg}/src/index.ts` : `${pkg}/test/t${i}.test.ts`);
    const after = i > 0 && rand() < 0.6 ? [`i${pick(i)}`] : [];
    plan.push({ id: `i${i}`, writes, after, estimate: `${1 + pick(30)}m` });
  }
  return plan;
}

/** The naive way: every pair of items, every pair of their paths. */
function allPairsConflicts(writes: readonly (readonly RepoPath[])[]): number {
  const keys = writes.map((ws) => ws.map((w) => w.key.join("/")));
  let conflicts = 0;
  for (let a = 0; a < keys.length; a++) {
    const ka = keys[a] ?? [];
    for (let b = a + 1; b < keys.length; b++) {
      const kb = keys[b] ?? [];
      search: for (const x of ka) {
        for (const y of kb) {
          if (x === y || y.startsWith(`${x}/`) || x.startsWith(`${y}/`) || x === "" || y === "") {
            conflicts++;
            break search;
          }
        }
      }
    }
  }
  return conflicts;
}

function timed<T>(fn: () => T): { value: T; seconds: number } {
  const start = performance.now();
  const value = fn();
  return { value, seconds: (performance.now() - start) / 1000 };
}

/** The best of `runs` runs: wall-clock seconds, and CPU seconds of this process. */
function best<T>(runs: number, fn: () => T): { value: T; seconds: number; cpuSeconds: number } {
  let last: { value: T; seconds: number } | null = null;
  let [seconds, cpuSeconds] = [Infinity, Infinity];
  for (let r = 0; r < Math.max(1, runs); r++) {
    const cpu = process.cpuUsage();
    last = timed(fn);
    const used = process.cpuUsage(cpu);
    seconds = Math.min(seconds, last.seconds);
    cpuSeconds = Math.min(cpuSeconds, (used.user + used.system) / 1e6);
  }
  return { value: last!.value, seconds, cpuSeconds };
}

export async function run(): Promise<void> {
  const figures: string[] = [];
  console.log("items  paths   conflicts  naruto_s  all_pairs_s  ratio");
  for (const size of [1_000, 10_000]) {
    const text = JSON.stringify({ version: 1, title: `bench ${size}`, items: generatePlan(size) });
    const limits = { ...defaultPlanLimits(), maxItems: size };
    checkPlan(text, { limits }); // warm up the JIT on the same shape
    const naruto = best(RUNS, () => {
      const check = checkPlan(text, { limits });
      if (!check.ok || !check.plan) throw new Error(`the generated plan is invalid: ${check.errors[0]?.message}`);
      const added = new Map(check.items.map((i) => [i.id, i.added_after]));
      const nodes = check.plan.items.map((i) => ({ id: i.id, estimate: i.estimate, deps: [...i.after, ...(added.get(i.id) ?? [])] }));
      simulate({ nodes, slots: 16 });
      return check;
    });
    // DESIGN.md §12's figure: the check and its proof, without the schedule; then the checker.
    const check = best(RUNS, () => checkPlan(text, { limits }));
    const { plan, proof } = naruto.value;
    const verified = best(RUNS, () => (plan && proof ? verifyProof(plan, proof) : { ok: false }));
    if (!verified.value.ok) throw new Error("the independent checker rejects the proof");
    const writes = JSON.parse(text).items.map((i: RawItem) =>
      i.writes.map((w) => {
        const r = normalizePath(w);
        if (!r.ok) throw new Error(r.message);
        return r.value;
      }),
    );
    const naive = timed(() => allPairsConflicts(writes));
    const found = naruto.value.conflicts.length;
    if (found !== naive.value) throw new Error(`naruto found ${found} conflicting pairs, all-pairs ${naive.value}`);
    const paths = writes.reduce((n: number, w: RepoPath[]) => n + w.length, 0);
    const ratio = naive.seconds / naruto.seconds;
    console.log(
      `${String(size).padEnd(6)} ${String(paths).padEnd(7)} ${String(found).padEnd(10)} ${naruto.seconds.toFixed(3).padEnd(9)} ${naive.seconds.toFixed(3).padEnd(12)} ${ratio.toFixed(1)}`,
    );
    figures.push(
      `bench plan items_${size}_seconds=${naruto.seconds.toFixed(3)}`,
      `bench plan all_pairs_${size}_seconds=${naive.seconds.toFixed(3)}`,
      `bench plan speedup_${size}=${ratio.toFixed(1)}`,
      `bench plan check_${size}_cpu_seconds=${check.cpuSeconds.toFixed(3)}`,
      `bench plan verify_proof_${size}_cpu_seconds=${verified.cpuSeconds.toFixed(3)}`,
    );
  }
  // YAML is the format people write; its parser is slower than JSON's, so show it apart.
  const { stringify } = await import("yaml");
  const yaml = stringify({ version: 1, title: "bench yaml", items: generatePlan(10_000) });
  const y = timed(() => checkPlan(yaml, { limits: { ...defaultPlanLimits(), maxItems: 10_000 } }));
  console.log(`10,000 items written as YAML: ${y.seconds.toFixed(3)} s (parse included)`);
  figures.push(`bench plan yaml_10000_seconds=${y.seconds.toFixed(3)}`);
  for (const f of figures) console.log(f);
}
