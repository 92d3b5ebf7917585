#!/usr/bin/env node
// A scripted queue verify for the queue's trust tests (issue 37). It "runs" the candidate's tests:
// every `it(` line of a `test/*.test.js` file is a test, every `it.skip(`/`xit(` line a skipped
// one, and a test whose line holds `FAIL` fails. Options:
//   --report PATH           write what ran as JUnit XML to PATH (relative to the candidate)
//   --red-if-exists FILE    exit 1 when FILE exists in the candidate (a broken build)
//   --flaky SEED RATE STATE exit 1 at random: run n (counted in the file STATE) is red when the
//                           n-th number of a generator seeded with SEED is below RATE
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

const args = process.argv.slice(2);
const option = (name, count = 1) => {
  const at = args.indexOf(name);
  return at === -1 ? null : args.slice(at + 1, at + 1 + count);
};

const cases = [];
const folder = "test";
for (const name of existsSync(folder) ? readdirSync(folder).sort() : []) {
  if (!name.endsWith(".test.js")) continue;
  for (const line of readFileSync(`${folder}/${name}`, "utf8").split("\n")) {
    const skipped = /\b(it\.skip|xit)\(/.test(line);
    if (!skipped && !/\bit\(/.test(line)) continue;
    const title = /\(\s*['"]([^'"]+)['"]/.exec(line)?.[1] ?? line.trim();
    cases.push({ file: `${folder}/${name}`, title, skipped, failed: !skipped && line.includes("FAIL") });
  }
}
const failed = cases.filter((c) => c.failed).length;
console.log(`verify: ${cases.length} test(s), ${failed} failed, ${cases.filter((c) => c.skipped).length} skipped`);

const report = option("--report")?.[0];
if (report) {
  const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
  const body = cases
    .map(
      (c) =>
        `    <testcase classname="${esc(c.file)}" name="${esc(c.title)}" file="${esc(c.file)}">${c.skipped ? "<skipped/>" : c.failed ? '<failure message="failed"/>' : ""}</testcase>`,
    )
    .join("\n");
  mkdirSync(dirname(report), { recursive: true });
  writeFileSync(
    report,
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="${cases.length}">\n  <testsuite name="tests">\n${body}\n  </testsuite>\n</testsuites>\n`,
  );
}

const red = option("--red-if-exists")?.[0];
if (red && existsSync(red)) {
  console.error(`verify: ${red} breaks the build`);
  process.exit(1);
}
const flaky = option("--flaky", 3);
if (flaky) {
  const [seed, rate, state] = flaky;
  const n = existsSync(state) ? Number(readFileSync(state, "utf8")) : 0;
  writeFileSync(state, String(n + 1));
  // mulberry32, as test/support/seeded-random.ts
  let s = Number(seed) >>> 0;
  let value = 0;
  for (let i = 0; i <= n; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    value = ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
  if (value < Number(rate)) {
    console.error(`verify: a flaky test failed (run ${n + 1})`);
    process.exit(1);
  }
}
process.exit(failed > 0 ? 1 : 0);
