/**
 * `naruto init [--agent claude|codex|gemini|aider|command] [--command CMD] [--app [SLUG]]
 * [--repo OWNER/NAME] [--force] [--dry-run]`: writes `.github/workflows/naruto.yml` and
 * `.github/naruto.yml` in the repository it runs in, then prints what only a person can do.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  AGENT_CHOICES,
  AGENT_SETUP,
  CONFIG_FILE_PATH,
  configText,
  inferAgent,
  personSteps,
  planDiff,
  planFiles,
  renderWorkflow,
  WORKFLOW_PATH,
  type AgentChoice,
  type PlannedFile,
} from "../setup/index.ts";
import { EXIT, UsageError } from "./errors.ts";
import type { CliIO } from "./io.ts";
import { narutoTemplate, onPath, readIfThere, setupContext } from "./setup-context.ts";

export interface InitOptions {
  readonly agent?: string;
  readonly command?: string;
  /** `--app` alone is true; `--app SLUG` names the App. */
  readonly app?: boolean | string;
  readonly repo?: string;
  readonly force: boolean;
  readonly dryRun: boolean;
}

export async function initCommand(io: CliIO, o: InitOptions): Promise<number> {
  const context = await setupContext(io, o.repo);
  const { agent, said } = await chooseAgent(io, o);
  if (agent === "command" && (o.command === undefined || o.command.trim() === "")) {
    throw new UsageError('--agent command needs the command itself: --command "<what runs your agent>" (it gets the prompt in $NARUTO_PROMPT_FILE)');
  }
  if (agent !== "command" && o.command !== undefined)
    throw new UsageError(`--command is for --agent command; --agent ${agent} runs its preset's checked command line`);
  const app = o.app !== undefined && o.app !== false;
  const appSlug = typeof o.app === "string" ? o.app : null;
  const { version, template } = await narutoTemplate();
  const wanted = [
    { path: WORKFLOW_PATH, text: renderWorkflow({ template, version, choice: { agent, app } }) },
    { path: CONFIG_FILE_PATH, text: configText({ agent, command: o.command ?? null }) },
  ];
  const existing: Record<string, string | null> = {};
  for (const { path } of wanted) existing[path] = await readIfThere(join(context.root, path));
  const files = planFiles(wanted, existing, o.force);

  if (said !== null) io.stdout(`${said}\n`);
  if (o.dryRun) {
    const diff = planDiff(files);
    io.stdout(diff === "" ? "naruto init: nothing would change\n" : diff);
    for (const f of files) if (f.action === "differs") io.stdout(`(${f.path} exists and differs: only --force would replace it)\n`);
    return EXIT.ok;
  }
  for (const f of files) {
    if (f.action !== "create" && f.action !== "replace") continue;
    await mkdir(dirname(join(context.root, f.path)), { recursive: true });
    await writeFile(join(context.root, f.path), f.after);
  }
  io.stdout(files.map((f) => describe(f, { agent, app, version })).join(""));
  const refused = files.filter((f) => f.action === "differs");
  if (refused.length > 0) {
    io.stderr(
      `naruto init: ${refused.map((f) => f.path).join(" and ")} already ${refused.length === 1 ? "exists" : "exist"} and ${refused.length === 1 ? "differs" : "differ"} from what init writes; left as ${refused.length === 1 ? "it is" : "they are"}. See the difference with --dry-run; \`naruto upgrade\` brings the workflow to this version keeping your blocks; --force replaces them.\n`,
    );
    return EXIT.usage;
  }
  const secrets = AGENT_SETUP[agent].secrets.map((name) => ({ name, hint: AGENT_SETUP[agent].keyHint }));
  io.stdout(`\nWhat only you can do:\n${personSteps({ repo: context.repo, secrets, app, appSlug, defaultBranch: context.defaultBranch }).join("\n")}\n`);
  if (agent === "command")
    io.stdout(
      "  Your agent's own keys: pass each in the workflow's agent steps (the `*-env` blocks) and list it in its profile's env: in .github/naruto.yml.\n",
    );
  io.stdout(`\nThen \`naruto doctor\` checks all of it against GitHub, and a comment \`/naruto <task>\` on an issue starts a mission.\n`);
  return EXIT.ok;
}

async function chooseAgent(io: CliIO, o: InitOptions): Promise<{ agent: AgentChoice; said: string | null }> {
  if (o.agent !== undefined) {
    if (!(AGENT_CHOICES as readonly string[]).includes(o.agent)) throw new UsageError(`--agent ${o.agent}: expected one of ${AGENT_CHOICES.join(", ")}`);
    return { agent: o.agent as AgentChoice, said: null };
  }
  if (o.command !== undefined) return { agent: "command", said: null };
  const programs = new Map<string, boolean>();
  for (const choice of AGENT_CHOICES) {
    const program = AGENT_SETUP[choice].program;
    if (program !== null) programs.set(program, await onPath(io.env, program));
  }
  const inferred = inferAgent((program) => programs.get(program) === true);
  return {
    agent: inferred.choice,
    said: inferred.found
      ? `agent: ${AGENT_SETUP[inferred.choice].title} (\`${AGENT_SETUP[inferred.choice].program}\` is on your PATH; --agent chooses another)`
      : `agent: ${AGENT_SETUP[inferred.choice].title} (none of claude, codex, gemini, aider is on your PATH; --agent chooses another)`,
  };
}

function describe(f: PlannedFile, choice: { agent: AgentChoice; app: boolean; version: string }): string {
  const what =
    f.path === WORKFLOW_PATH
      ? ` (naruto ${choice.version}'s template; ${AGENT_SETUP[choice.agent].title} in plan, work and review; ${choice.app ? "the App takes the comments" : "without the App"})`
      : "";
  switch (f.action) {
    case "create":
      return `wrote ${f.path}${what}\n`;
    case "replace":
      return `replaced ${f.path}${what}\n`;
    case "unchanged":
      return `${f.path} is already what init writes: unchanged\n`;
    case "differs":
      return `left ${f.path} as it is (it differs)\n`;
  }
}
