#!/usr/bin/env node
// Prints credentials and workflow commands, writes a result file quoting them, and exits 1 (issue
// 13, points 7 and 9). What it prints:
// - the values of its allowlisted variables ANTHROPIC_API_KEY and ACME_SETTING (a name that
//   does not look secret: only its exact value can be redacted), as is, in base64 and in hex,
//   and ACME_SETTING once more split across two writes 100 ms apart (two chunks); both split by
//   whitespace too: by a line break, by a space, in chunks of five on lines of their own, and
//   across two writes with a line break between them (issue 31);
// - credentials it was never given, in their known formats (leaky-values.json): both `ghs_`
//   forms (the long one split across two writes too), `github_pat_`, `sk-proj-`, `sk-ant-`, an
//   AWS key id with its secret key beside it and by name;
// - workflow commands after a lone `\r`, after `\r\n`, indented, and in the old `##[…]` form.
import { readFileSync, writeFileSync } from "node:fs";

const values = JSON.parse(readFileSync(new URL("./leaky-values.json", import.meta.url), "utf8"));
const key = process.env.ANTHROPIC_API_KEY ?? "";
const setting = process.env.ACME_SETTING ?? "";
const out = (text) => new Promise((resolve) => process.stdout.write(text, () => resolve()));
const pause = () => new Promise((resolve) => setTimeout(resolve, 100));

// First, so that a reason cut to its first line shows them.
await out(`${values.ghsLong} ${key}\n`);
await out(`leaky: my key is ${key} and my setting is ${setting}\n`);
await out(`leaky: encoded ${Buffer.from(setting).toString("base64")} ${Buffer.from(setting).toString("hex")} ${Buffer.from(key).toString("base64")}\n`);
await out(`leaky: found ${values.ghsClassic} ${values.githubPat} ${values.openai} ${values.anthropic}\n`);
await out(`leaky: aws ${values.awsKeyId} ${values.awsSecret}\n`);
await out(`aws_secret_access_key = ${values.awsSecret}\n`);
await out(`leaky: split ${setting.slice(0, 9)}`);
await pause();
await out(`${setting.slice(9)} and ${values.ghsLong.slice(0, 200)}`);
await pause();
await out(`${values.ghsLong.slice(200)} done\n`);
await out(`leaky: halves ${key.slice(0, 40)}\n${key.slice(40)}\n`);
await out(`leaky: spaced ${key.slice(0, 50)} ${key.slice(50)}\n`);
await out(`leaky: chunks\n${(setting.match(/.{1,5}/g) ?? []).join("\n")}\n`); // no setting given: no chunks
await out(`leaky: streamed ${setting.slice(0, 12)}\n`);
await pause();
await out(`${setting.slice(12)} end\n`);
await out("leaky: commands\r::add-mask::naruto-mask-probe\n");
await out("\r::error::naruto-annotation-probe\n");
await out("\r::set-output name=probe::naruto-output-probe\n");
await out("\r::set-env name=LEAKY_ENV_PROBE::naruto-env-probe\n");
await out("\r::stop-commands::naruto-stop-probe\n");
await out("\r::naruto-stop-probe::\n");
await out("\r\n::warning::naruto-crlf-probe\n");
await out("   ::notice::naruto-indented-probe\n");
await out("see ##[add-mask]naruto-old-mask-probe\n");
process.stderr.write(`leaky: on stderr ${values.ghsClassic}\n`);
writeFileSync(process.env.NARUTO_RESULT_FILE, JSON.stringify({ summary: `leaked ${key} and ${setting}`, model: `model-${setting}` }));
process.exit(1);
