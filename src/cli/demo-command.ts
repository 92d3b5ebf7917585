/**
 * `naruto demo`: copies the bundled example project (`examples/demo/`) into a temporary git
 * repository and runs a whole mission on it with the deterministic demo agent and queue
 * verification — no network, no keys. The repository is kept so the result can be looked at, and
 * its path said at the start and at the end; `--no-keep` removes it when the mission ends.
 */
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DEMO_AGENT_PATH } from "../agent/index.ts";
import { shellQuote } from "../agent/index.ts";
import { formatConfigErrors, loadConfig, type Config } from "../config/index.ts";
import { createGit, gitText, type Git } from "../git/index.ts";
import { gitCommonDir } from "../engine/index.ts";
import { runLocalMission } from "../local/index.ts";
import { logProgress, terminalProgress } from "../local/index.ts";
import { reportPaths } from "../local/index.ts";
import { missionResult } from "../report/index.ts";
import type { CliIO } from "./io.ts";
import { packageRoot } from "./package-root.ts";

export const DEMO_DIR = join(packageRoot(), "examples", "demo");

const DEMO_IDENTITY = {
  GIT_AUTHOR_NAME: "naruto demo",
  GIT_AUTHOR_EMAIL: "demo@naruto.invalid",
  GIT_COMMITTER_NAME: "naruto demo",
  GIT_COMMITTER_EMAIL: "demo@naruto.invalid",
};

/** examples/demo/naruto.yml with the demo agent's real path in its command and its folder in `read:`. */
export async function demoConfigText(): Promise<string> {
  return (await readFile(join(DEMO_DIR, "naruto.yml"), "utf8"))
    .replaceAll("{{demo_agent}}", shellQuote(DEMO_AGENT_PATH))
    .replaceAll("{{demo_agent_dir}}", JSON.stringify(dirname(DEMO_AGENT_PATH)));
}

/** The demo's config, its agent run by `node` (the Node.js running naruto). */
export async function demoConfig(node: string = process.execPath): Promise<Config> {
  const text = await demoConfigText();
  const loaded = loadConfig(text.replace(/command: node /g, `command: ${shellQuote(node)} `));
  if (!loaded.ok) throw new Error(`examples/demo/naruto.yml is invalid:\n${formatConfigErrors(loaded.errors)}`);
  return loaded.config;
}

/** Copies the example project into a fresh repository with one commit on `main`. */
export async function createDemoRepository(git: Git, parent: string = tmpdir()): Promise<string> {
  const dir = await mkdtemp(join(parent, "naruto-demo-"));
  await cp(join(DEMO_DIR, "project"), dir, { recursive: true });
  const run = (...args: string[]) => gitText(git, { args, cwd: dir, env: DEMO_IDENTITY });
  await run("init", "-q", "-b", "main");
  await run("add", "-A");
  await run("commit", "-q", "-m", "The inventory library before the demo mission");
  return dir;
}

export async function demoCommand(io: CliIO, options: { json: boolean; keep: boolean }): Promise<number> {
  const git = createGit({ env: { ...io.env, GIT_CONFIG_NOSYSTEM: "1" } });
  const repoDir = await createDemoRepository(git);
  const now = () => new Date();
  const say = options.json ? io.stderr : io.stdout;
  say(
    `naruto demo: a mission of the bundled plan on a copy of examples/demo/project in ${repoDir}${options.keep ? "" : " (removed at the end: --no-keep)"}\n\n`,
  );
  const progress = options.json ? logProgress(io.stderr, now) : io.isTTY ? terminalProgress(io.stdout, now) : logProgress(io.stdout, now);
  const mission = await runLocalMission(
    {
      git,
      env: io.env,
      now,
      randomId: () => Math.random().toString(36).slice(2, 8).padEnd(6, "0"),
      progress,
      tickMs: 1000,
      nodePath: process.execPath,
      cwd: io.cwd,
    },
    {
      repoDir,
      planText: await readFile(join(DEMO_DIR, "plan.yml"), "utf8"),
      task: "Add stock reports, CSV import and a command line to the inventory library",
      baseRef: "HEAD",
      agentCommand: null,
      parallel: null,
      verify: null,
      strict: false,
      config: await demoConfig(),
    },
  );
  progress.close();
  const report = reportPaths(await gitCommonDir(git, repoDir), mission.id);
  if (!options.keep) await rm(repoDir, { recursive: true, force: true });
  const kept = options.keep
    ? [
        `  repository: ${repoDir} (kept; your own checkouts were not touched: delete it with \`rm -rf ${shellQuote(repoDir)}\`, or run \`naruto demo --no-keep\`)`,
        `  queue:      git -C ${shellQuote(repoDir)} log --oneline ${mission.queue.branch}`,
        `  report:     ${report.markdown}`,
        `  result:     ${report.json}`,
      ]
    : [`  repository: ${repoDir} removed (--no-keep), with its queue branch and report`];
  if (options.json) {
    io.stdout(`${JSON.stringify(missionResult(mission), null, 2)}\n`);
    io.stderr(`${kept[0]?.trimStart()}\n`);
  } else {
    const integrated = mission.items.filter((i) => i.status === "integrated").length;
    io.stdout(
      [
        "",
        `mission ${mission.id}: ${mission.status}, verdict ${mission.verdict?.verdict ?? "none"} — ${integrated}/${mission.items.length} items integrated, ${mission.queue.verify_runs} queue verify runs`,
        ...kept,
        "",
      ].join("\n"),
    );
  }
  return mission.verdict?.verdict === "approve" ? 0 : 1;
}
