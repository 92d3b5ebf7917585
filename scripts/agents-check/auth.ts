/**
 * The two ways a user's credentials meet naruto, checked with the real CLIs (npm run agents-check):
 *
 * - **None at all** (`checkRefusal`): no variable of the preset's, an empty HOME (no login). The
 *   pre-run check must refuse before anything is made (exit 2, no mission, no branch), naming
 *   the commands that fix it; for a CLI with an offline probe (`claude auth status`,
 *   `codex login status`), that probe is the real CLI's answer.
 * - **The opt-in login** (`checkLoginMission`): the CLI logged in on "this machine" (a scratch
 *   HOME) by the driver, no key anywhere, the profile's `login: true`. The mission must pass
 *   exactly as the key's does (mission-check.ts), and the user's login file must be left as it
 *   was: the agent got a copy.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { authVariableNames, PRESET_AUTH } from "../../src/config/preset-auth.ts";
import { PRESETS } from "../../src/config/presets.ts";
import { CASES } from "./cases.ts";
import type { InstalledCli } from "./install.ts";
import { checkMission, type MissionOutcome } from "./mission-check.ts";
import { initRepo, makeScratch } from "./scratch.ts";
import type { CliDriver } from "./types.ts";

const run = promisify(execFile);
const NARUTO = join(import.meta.dirname, "..", "..", "bin", "naruto.js");

/** Where each CLI looks for its login besides HOME: never the user's during a check. */
const LOGIN_HOMES = ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"];

/** naruto's environment with nothing of the user's credentials: no variable the preset passes or reads, HOME `home`. */
function bareEnv(driver: CliDriver, cli: InstalledCli, home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, PATH: `${cli.bin}:${process.env.PATH ?? ""}` };
  const auth = PRESET_AUTH[driver.name];
  for (const name of [...PRESETS[driver.name].env, ...authVariableNames(auth), ...Object.keys(auth.misread ?? {}), ...LOGIN_HOMES]) delete env[name];
  return env;
}

export async function checkRefusal(driver: CliDriver, cli: InstalledCli, root: string): Promise<MissionOutcome & { readonly kept?: string }> {
  const scratch = await makeScratch({ cacheRoot: dirname(root), name: `${driver.name}-no-credentials` });
  const home = join(scratch.stateDir, "home");
  await mkdir(home, { recursive: true });
  await initRepo(scratch, { preset: driver.name, env: [], read: [cli.dir], cases: CASES });
  const naruto = await run(process.execPath, [NARUTO, "run", "--plan", scratch.planFile], {
    cwd: scratch.repo,
    env: bareEnv(driver, cli, home),
    timeout: 5 * 60_000,
  }).then(
    (r) => ({ code: 0, stderr: r.stderr }),
    (error: { code?: number; stderr?: string }) => ({ code: error.code ?? 1, stderr: error.stderr ?? String(error) }),
  );
  const auth = PRESET_AUTH[driver.name];
  const problems: string[] = [];
  if (naruto.code !== 2) problems.push(`naruto run exited ${naruto.code}, expected 2 (refused before anything is made)`);
  const expected = [
    `(${auth.cli}) has no credentials`,
    ...auth.fix.map(([command]) => command),
    ...(auth.probe === null ? [] : [`\`${auth.probe.join(" ")}\` finds no login`]),
    "Nothing was started.",
  ];
  for (const text of expected) if (!naruto.stderr.includes(text)) problems.push(`the refusal does not say "${text}"`);
  const made = (await run("git", ["for-each-ref", "--format=%(refname)", "refs/naruto/", "refs/heads/naruto/"], { cwd: scratch.repo })).stdout.trim();
  if (made !== "") problems.push(`the refused run made refs: ${made.replaceAll("\n", ", ")}`);
  if (problems.length > 0) return { problems, details: [`naruto run's standard error:\n${naruto.stderr.trim()}`], kept: scratch.root };
  await rm(scratch.root, { recursive: true, force: true });
  return { problems, details: [] };
}

export async function checkLoginMission(
  driver: CliDriver,
  cli: InstalledCli,
  root: string,
  keep: boolean,
): Promise<MissionOutcome & { readonly kept?: string }> {
  if (driver.login === undefined) return { problems: [], details: [] };
  const scratch = await makeScratch({ cacheRoot: dirname(root), name: `${driver.name}-login` });
  const home = join(scratch.stateDir, "home");
  await mkdir(home, { recursive: true });
  const server = await driver.startServer(CASES.map((c) => c.scenario));
  try {
    const login = await driver.login({ server, home, bin: cli.bin });
    const before = await readFile(login.loginFile);
    await initRepo(scratch, { preset: driver.name, env: Object.keys(login.env), read: [cli.dir, ...login.readOnly], cases: CASES, login: true });
    const outcome = await checkMission({ scratch, driver, cases: CASES, env: { ...bareEnv(driver, cli, home), ...login.env } });
    const after = await readFile(login.loginFile).catch(() => null);
    const problems = [...outcome.problems];
    if (after === null || !after.equals(before))
      problems.push(`the user's login file ${login.loginFile} was ${after === null ? "removed" : "changed"} by the run`);
    if (problems.length > 0 || keep) await writeFile(join(scratch.root, "requests.jsonl"), `${server.requests.map((r) => JSON.stringify(r)).join("\n")}\n`);
    if (problems.length > 0)
      return {
        problems,
        details: [...outcome.details, `the scripted server answered ${server.requests.length} request(s) (requests.jsonl in the scratch folder)`],
        kept: scratch.root,
      };
    if (!keep) await rm(scratch.root, { recursive: true, force: true });
    return { problems, details: outcome.details };
  } catch (error) {
    return { problems: [error instanceof Error ? error.message : String(error)], details: [], kept: scratch.root };
  } finally {
    await server.close();
  }
}
