/**
 * What `naruto init` writes runs a whole mission as it is written (issue 34): for each agent it
 * sets up, and for the App, `naruto init` runs in a scratch repository, and its two files, no
 * line changed, become the repository the Actions simulator runs a `/naruto` mission in, from
 * the comment to the verdict.
 *
 * The agent CLIs come from the workflow's own install step (`npm install -g <package>@<pinned
 * version>`), npm itself pointed at a registry on loopback that serves a stand-in under the
 * real package's name and version (test/support/agents/stand-in-cli/): the runner's `.env` gives
 * the registry and a global folder on its PATH, as a runner image's tool cache is. The stand-in
 * runs under naruto's preset command line, in the sandbox, and refuses to work without the key
 * the workflow passes from the repository secret. `--agent command` runs the repository's own
 * script. aider is left out: its install step is `pipx install aider-chat`, from PyPI, which
 * nothing here can serve or reach (its workflow is still parsed: src/setup/workflow-text.test.ts).
 */
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../../../src/cli/main.ts";
import { missionIdFor } from "../../../src/github-driver/mission-id.ts";
import { missionResult } from "../../../src/report/index.ts";
import { AGENT_SETUP, PINNED, type AgentChoice } from "../../../src/setup/index.ts";
import type { RunResult } from "../../support/actions-sim/index.ts";
import { createTestRepo } from "../../support/git-repo.ts";
import { startNpmRegistry, type NpmRegistry } from "../../support/npm-registry.ts";
import { fakeCli } from "../../local/cli-io.ts";
import { checkFinished, TWO_ITEM_PLAN, withPlan } from "../support/app-checks.ts";
import { MAINTAINER, REPO as APP_REPO, withAppWorld } from "../support/app-world.ts";
import { REPO_ROOT, startWorld } from "../support/world.ts";
import { check, checkEqual, type Scenario } from "./scenario.ts";

const STAND_IN = fileURLToPath(new URL("../../support/agents/stand-in-cli/", import.meta.url));
const DEMO_AGENT = join(REPO_ROOT, "src/agent/demo-agent.mjs");
const PRESETS = ["claude", "codex", "gemini"] as const;
const KEYS: Readonly<Record<string, string>> = {
  ANTHROPIC_API_KEY: "sk-ant-stand-in-0123456789abcdef",
  CODEX_API_KEY: "codex-stand-in-0123456789abcdef",
  GEMINI_API_KEY: "gemini-stand-in-0123456789abcdef",
};

/** The two files `naruto init` writes in a scratch repository of `acme/demo`, as written. */
async function initFiles(args: string[]): Promise<{ workflow: string; config: string; out: string }> {
  const scratch = await createTestRepo();
  try {
    await scratch.run("remote", "add", "origin", "https://github.com/acme/demo.git");
    const cli = fakeCli(scratch.dir);
    const code = await main(["init", ...args], cli.io);
    check(code === 0, `naruto init ${args.join(" ")} exited ${code}: ${cli.stderr()}`);
    return {
      workflow: await readFile(join(scratch.dir, ".github/workflows/naruto.yml"), "utf8"),
      config: await readFile(join(scratch.dir, ".github/naruto.yml"), "utf8"),
      out: cli.stdout(),
    };
  } finally {
    await rm(scratch.dir, { recursive: true, force: true });
  }
}

/** The registry of stand-ins, and the runner's .env that points npm at it and puts its global folder on PATH. */
async function runnerTools(): Promise<{ registry: NpmRegistry; tools: string; runnerEnv: Record<string, string>; close(): Promise<void> }> {
  const registry = await startNpmRegistry(
    PRESETS.map((cli) => ({
      name: PINNED[cli].package,
      version: PINNED[cli].version,
      dir: STAND_IN,
      bin: { [cli]: "stand-in-cli.mjs" },
      extra: { "demo-agent.mjs": DEMO_AGENT },
    })),
  );
  const tools = await mkdtemp(join(tmpdir(), "e2e-runner-tools-"));
  await chmod(tools, 0o777);
  const prefix = join(tools, "npm-global");
  const runnerEnv = {
    npm_config_registry: registry.url,
    npm_config_prefix: prefix,
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    PATH: `${join(prefix, "bin")}:${process.env["PATH"] ?? "/usr/bin:/bin"}`,
  };
  return { registry, tools, runnerEnv, close: async () => (await registry.close(), await rm(tools, { recursive: true, force: true })) };
}

/** Every job that runs an agent ran the install step `naruto init` wrote, and it succeeded. */
function checkInstalled(runs: readonly RunResult[], agent: AgentChoice): void {
  const title = `Install ${AGENT_SETUP[agent].title}`;
  const agentJobs = runs.flatMap((r) => r.jobs).filter((j) => /^(plan|work|review)\b/.test(j.name) && j.result === "success");
  check(
    agentJobs.some((j) => j.name.startsWith("work")),
    "a work job ran",
    runs,
  );
  for (const job of agentJobs)
    check(
      job.steps.some((s) => s.name === title && s.conclusion === "success"),
      `${job.name} ran "${title}"`,
      runs,
    );
}

function presetScenario(agent: (typeof PRESETS)[number]): Scenario {
  return {
    name: `init-${agent}`,
    run: async () => {
      const files = await initFiles(["--agent", agent]);
      check(files.workflow.includes(`npm install -g ${PINNED[agent].package}@${PINNED[agent].version}`), "the workflow installs the pinned CLI");
      const tools = await runnerTools();
      const secret = AGENT_SETUP[agent].secrets[0] ?? "";
      const world = await startWorld({
        config: files.config,
        workflow: files.workflow,
        secrets: { [secret]: KEYS[secret] ?? "" },
        sharedDirs: [tools.tools],
        runnerEnv: tools.runnerEnv,
        legConcurrency: 1,
      });
      try {
        await whole(world, agent);
        check(
          tools.registry.requests.some((r) => r.startsWith(`GET /${PINNED[agent].package} 200`)) &&
            tools.registry.requests.some((r) => r.includes("/-/tarballs/") && r.endsWith(" 200")),
          `npm installed ${PINNED[agent].package} from the registry: ${tools.registry.requests.join(", ")}`,
        );
      } finally {
        await world.close();
        await tools.close();
      }
    },
  };
}

/** A `/naruto` command with a two-item plan, run to its verdict in the app-less world. */
async function whole(world: Awaited<ReturnType<typeof startWorld>>, agent: AgentChoice): Promise<void> {
  const command = await world.comment(withPlan("/naruto Build the tiny library", TWO_ITEM_PLAN));
  check(command !== null, "the workflow did not run for the /naruto comment");
  const runs = [command, ...(await world.settle())];
  const [id] = await world.missionIds();
  check(id !== undefined, "no mission was stored", runs);
  const mission = await world.mission(id);
  check(mission !== null, `mission ${id} is gone`, runs);
  const result = missionResult(mission);
  checkEqual([result.status, result.verdict], ["done", "approve"], "the mission's end", runs);
  checkEqual(
    result.items.map((i) => [i.id, i.status]),
    [
      ["schema", "integrated"],
      ["users", "integrated"],
    ],
    "the items",
    runs,
  );
  const queued = (await world.bareGit("ls-tree", "-r", "--name-only", `refs/heads/naruto/${id}`)).split("\n");
  for (const file of ["src/schema.js", "src/users.js"]) check(queued.includes(file), `${file} is on the queue`, runs);
  for (const r of runs) for (const j of r.jobs) check(j.result === "success" || j.result === "skipped", `${j.name} of run ${r.id}: ${j.result}`, runs);
  if (agent !== "command") checkInstalled(runs, agent);
}

const commandScenario: Scenario = {
  name: "init-command",
  run: async () => {
    const files = await initFiles(["--agent", "command", "--command", "node scripts/agent.mjs"]);
    const world = await startWorld({ config: files.config, workflow: files.workflow, files: { "scripts/agent.mjs": await readFile(DEMO_AGENT, "utf8") } });
    try {
      await whole(world, "command");
    } finally {
      await world.close();
    }
  },
};

const appScenario: Scenario = {
  name: "init-app",
  run: async () => {
    const files = await initFiles(["--agent", "claude", "--app", "naruto"]);
    check(files.out.includes("NARUTO_BOT_LOGIN = naruto[bot]"), `init named the App's login variable:\n${files.out}`);
    const tools = await runnerTools();
    try {
      await withAppWorld(
        {
          config: files.config,
          workflow: files.workflow,
          secrets: { ANTHROPIC_API_KEY: KEYS["ANTHROPIC_API_KEY"] ?? "" },
          sharedDirs: [tools.tools],
          runnerEnv: tools.runnerEnv,
          legConcurrency: 1,
        },
        async (world) => {
          const { commentId } = await world.comment({ as: MAINTAINER, body: withPlan("/naruto Build the tiny library", TWO_ITEM_PLAN) });
          const id = missionIdFor(APP_REPO, commentId);
          await world.settle();
          checkEqual(
            world.runs.filter((r) => r.jobs.some((j) => /^(command|watch)\b/.test(j.name))).length,
            0,
            "runs with a command or watch job (init --app leaves them out)",
            world.runs,
          );
          await checkFinished(world, id, { items: ["schema", "users"], files: ["src/schema.js", "src/users.js"] });
          checkInstalled(world.runs, "claude");
        },
      );
    } finally {
      await tools.close();
    }
  },
};

export const initAgents: readonly Scenario[] = [...PRESETS.map(presetScenario), commandScenario, appScenario];
