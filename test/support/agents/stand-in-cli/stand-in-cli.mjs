#!/usr/bin/env node
/**
 * A stand-in for an agent CLI (`claude`, `codex` or `gemini`, by the name it is run as), packed
 * under the real CLI's package name and version and installed by the workflow's own install step
 * from a registry on loopback (test/support/npm-registry.ts). It runs where the real CLI would:
 * from PATH, in the sandbox, under naruto's preset command line, unchanged.
 *
 * It refuses to run without the key its preset passes (the workflow's secret must have reached
 * it) or without a prompt on standard input, carries the prompt out with naruto's demo agent
 * (copied beside it when packed), and answers in the real CLI's output format, so the preset's
 * parser reads its usage: 100 tokens in, 20 out.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const cli = basename(process.argv[1] ?? "");
const KEYS = { claude: "ANTHROPIC_API_KEY", codex: "CODEX_API_KEY", gemini: "GEMINI_API_KEY" };
const key = KEYS[cli];
if (key === undefined) {
  console.error(`stand-in CLI: run as ${cli}, not one of ${Object.keys(KEYS).join(", ")}`);
  process.exit(2);
}
if (!process.env[key]) {
  console.error(`${cli} (stand-in): ${key} is not set`);
  process.exit(41);
}
const prompt = readFileSync(0, "utf8");
if (!prompt.includes("## Your work item") && !prompt.includes("create ")) {
  console.error(`${cli} (stand-in): no prompt on standard input`);
  process.exit(42);
}
const demo = spawnSync(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), "demo-agent.mjs")], {
  stdio: ["ignore", "inherit", "inherit"],
  env: process.env,
});
const summary = `the ${cli} stand-in carried out the prompt (demo agent exit ${demo.status})`;
if (cli === "claude") {
  process.stdout.write(
    JSON.stringify({
      type: "result",
      subtype: "success",
      is_error: demo.status !== 0,
      result: summary,
      total_cost_usd: 0.0123,
      usage: { input_tokens: 100, output_tokens: 20 },
      modelUsage: { "claude-stand-in": {} },
      permission_denials: [],
    }),
  );
} else if (cli === "codex") {
  const out = process.argv.indexOf("-o");
  if (out > 0 && process.argv[out + 1] !== undefined) writeFileSync(process.argv[out + 1], summary);
  const events = [
    { type: "item.completed", item: { type: "file_change", status: demo.status === 0 ? "completed" : "failed", changes: [] } },
    { type: "turn.completed", usage: { input_tokens: 100, output_tokens: 20 } },
  ];
  process.stdout.write(`${events.map((e) => JSON.stringify(e)).join("\n")}\n`);
} else {
  process.stdout.write(
    JSON.stringify({
      response: summary,
      stats: { models: { "gemini-stand-in": { roles: { main: {} }, tokens: { prompt: 100, candidates: 20, total: 120 } } } },
    }),
  );
}
process.exit(demo.status ?? 1);
