/**
 * `npm run bench` runs every benchmark in this folder; `npm run bench -- NAME` runs one.
 * Each benchmark module exports `run(): Promise<void>`, prints its own table, and ends with
 * `bench NAME FIGURE=VALUE` lines (DESIGN.md §12). Benchmarks are never part of `npm test`.
 */
import { readdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const available = (await readdir(here))
  .filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.startsWith("_"))
  .map((f) => f.slice(0, -3))
  .sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(", ")}; available: ${available.join(", ")}`);
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : available) {
  console.log(`\n== bench ${name}`);
  const mod = (await import(`./${name}.ts`)) as { run: () => Promise<void> };
  await mod.run();
}
