/**
 * `npm run agents-check [-- [--keep] NAME…]`: the real agent CLIs under naruto's own presets, offline.
 * For each driver of scripts/agents-check/drivers.ts it installs the pinned CLI into the cache
 * (outside the repository), starts the scripted model server of its vendor's wire API on
 * 127.0.0.1, and runs one mission of the cases of scripts/agents-check/cases.ts in a scratch
 * repository, with the preset unchanged and the sandbox as configured by default. It prints one
 * line per CLI:
 *
 *   agent claude ok
 *   agent codex FAIL: why
 *
 * and one line each for its two credential checks (scripts/agents-check/auth.ts): the run with
 * no credentials at all refused before anything is made (`agent claude no-credentials ok`), and
 * the mission of a CLI logged in offline, with `login: true` and no key (`agent claude login ok`;
 * Gemini's Google login cannot be made offline: `not checked`, with why).
 *
 * The details of a failure go to stderr after the line, and its scratch repository is kept
 * (`--keep` keeps every one, to look at a passing mission too).
 * Exits 1 when any CLI failed, 2 when a name matches no driver.
 */
import { execFile } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { PRESETS } from "../src/config/presets.ts";
import { CASES } from "./agents-check/cases.ts";
import { DRIVERS } from "./agents-check/drivers.ts";
import { checkLoginMission, checkRefusal } from "./agents-check/auth.ts";
import { agentsCacheRoot, installCli, type InstalledCli } from "./agents-check/install.ts";
import { checkMission, type MissionOutcome } from "./agents-check/mission-check.ts";
import { initRepo, makeScratch } from "./agents-check/scratch.ts";
import type { CliDriver } from "./agents-check/types.ts";

const run = promisify(execFile);

/** aider is a Python package: npm cannot install it, and this check fakes nothing. */
const AIDER_LINE =
  "agent aider not checked: aider-chat installs from PyPI, which is unreachable where this check was built and runs (npm only); its preset is tested against a stand-in in src/agent/presets.test.ts";

/** Gemini CLI's own login is Google's OAuth (and Code Assist's servers): nothing offline takes it. */
const NO_OFFLINE_LOGIN =
  "its login (Login with Google) is made and refreshed only against Google's servers, which the check cannot reach; the copy naruto gives is tested in src/agent/cli-login.test.ts";

async function main(): Promise<number> {
  const args = process.argv.slice(2).filter((a) => a !== "--");
  const keep = args.includes("--keep");
  const wanted = args.filter((a) => a !== "--keep");
  const unknown = wanted.filter((name) => !DRIVERS.some((d) => d.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`no driver ${unknown.join(", ")}; the drivers are: ${DRIVERS.map((d) => d.name).join(", ")}\n`);
    return 2;
  }
  const root = agentsCacheRoot(process.env);
  let failed = 0;
  const say = (line: string, outcome: MissionOutcome & { readonly kept?: string }) => {
    if (outcome.problems.length === 0) return void process.stdout.write(`${line} ok\n`);
    failed++;
    const [first = "", ...rest] = outcome.problems;
    process.stdout.write(`${line} FAIL: ${first.split("\n")[0]}\n`);
    const more = [...first.split("\n").slice(1), ...rest, ...outcome.details, ...(outcome.kept ? [`scratch repository kept: ${outcome.kept}`] : [])];
    if (more.length > 0) process.stderr.write(`${more.join("\n")}\n`);
  };
  const attempt = async (check: () => Promise<MissionOutcome & { readonly kept?: string }>) => {
    try {
      return await check();
    } catch (error) {
      return { problems: [error instanceof Error ? error.message : String(error)], details: [] };
    }
  };
  for (const driver of DRIVERS.filter((d) => wanted.length === 0 || wanted.includes(d.name))) {
    let cli: InstalledCli;
    try {
      cli = await installCli({ root, pkg: driver.pkg, version: driver.version, env: process.env });
    } catch (error) {
      say(`agent ${driver.name}`, { problems: [error instanceof Error ? error.message : String(error)], details: [] });
      continue;
    }
    say(`agent ${driver.name}`, await attempt(() => checkCli(driver, cli, { root, keep })));
    say(`agent ${driver.name} no-credentials`, await attempt(() => checkRefusal(driver, cli, root)));
    if (driver.login === undefined) process.stdout.write(`agent ${driver.name} login not checked: ${NO_OFFLINE_LOGIN}\n`);
    else say(`agent ${driver.name} login`, await attempt(() => checkLoginMission(driver, cli, root, keep)));
  }
  if (wanted.length === 0 || wanted.includes("aider")) process.stdout.write(`${AIDER_LINE}\n`);
  return failed === 0 ? 0 : 1;
}

async function checkCli(
  driver: CliDriver,
  cli: InstalledCli,
  { root, keep }: { readonly root: string; readonly keep: boolean },
): Promise<MissionOutcome & { readonly kept?: string }> {
  if (cli.installed) process.stderr.write(`agents-check: installed ${driver.pkg}@${driver.version} in ${cli.dir}\n`);
  // The packages say which Node.js they want (Claude Code: >=22); what counts is that the CLI runs here.
  const version = await run(join(cli.bin, driver.name), ["--version"], { timeout: 60_000 }).then(
    (r) => r.stdout.trim(),
    (error: Error) => `failed: ${error.message.split("\n")[0]}`,
  );
  if (!version.includes(driver.version)) return { problems: [`${driver.name} --version says "${version}", expected ${driver.version}`], details: [] };

  const scratch = await makeScratch({ cacheRoot: dirname(root), name: driver.name });
  const server = await driver.startServer(CASES.map((c) => c.scenario));
  try {
    const { env, readOnly } = await driver.configure({ server, stateDir: scratch.stateDir });
    await initRepo(scratch, { preset: driver.name, env: Object.keys(env), read: [cli.dir, ...readOnly], cases: CASES });
    const narutoEnv: NodeJS.ProcessEnv = { ...process.env, ...env, PATH: `${cli.bin}:${process.env.PATH ?? ""}` };
    // The preset passes its auth variables through: none of the user's own may reach the CLI
    // beside the driver's, or a real key could take precedence over the scripted server.
    for (const name of PRESETS[driver.name].env) if (!(name in env)) delete narutoEnv[name];
    const outcome = await checkMission({ scratch, driver, cases: CASES, env: narutoEnv });
    const served = `the scripted server answered ${server.requests.length} request(s)`;
    if (outcome.problems.length > 0 || keep)
      await writeFile(join(scratch.root, "requests.jsonl"), `${server.requests.map((r) => JSON.stringify(r)).join("\n")}\n`);
    if (outcome.problems.length > 0)
      return { ...outcome, details: [...outcome.details, `${served} (requests.jsonl in the scratch folder)`], kept: scratch.root };
    process.stderr.write(`agents-check: ${driver.name} ${version}: ${outcome.details[0] ?? ""}; ${served}${keep ? `; kept ${scratch.root}` : ""}\n`);
    if (!keep) await rm(scratch.root, { recursive: true, force: true });
    return outcome;
  } catch (error) {
    return { problems: [error instanceof Error ? error.message : String(error)], details: [], kept: scratch.root };
  } finally {
    await server.close();
  }
}

process.exitCode = await main();
