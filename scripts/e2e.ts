/**
 * `npm run e2e [-- NAME…]`: runs the end-to-end scenarios (test/e2e/scenarios) one after the
 * other and prints one line per scenario, as README, "naruto run --json" asks:
 *
 *   e2e whole-mission ok
 *   e2e hostile-agents FAIL: why
 *
 * The details of a failure (the runs, the failed steps' logs) go to stderr after the line.
 * Exits 1 when any scenario failed, 2 when a name matches no scenario.
 */
import { SCENARIOS } from "../test/e2e/scenarios/index.ts";

async function main(): Promise<number> {
  const wanted = process.argv.slice(2).filter((a) => a !== "--");
  const unknown = wanted.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`no scenario ${unknown.join(", ")}; the scenarios are: ${SCENARIOS.map((s) => s.name).join(", ")}\n`);
    return 2;
  }
  let failed = 0;
  for (const scenario of SCENARIOS.filter((s) => wanted.length === 0 || wanted.includes(s.name))) {
    try {
      await scenario.run();
      process.stdout.write(`e2e ${scenario.name} ok\n`);
    } catch (error) {
      failed++;
      const message = error instanceof Error ? error.message : String(error);
      const [first = "", ...rest] = message.split("\n");
      process.stdout.write(`e2e ${scenario.name} FAIL: ${first}\n`);
      if (rest.length > 0) process.stderr.write(`${rest.join("\n")}\n`);
    }
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
