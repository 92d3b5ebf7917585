/**
 * The `naruto` command line. Each command lives in its own file; this one parses arguments,
 * maps errors to exit codes (errors.ts: 0 ok, 1 the answer is "no", 2 bad usage or an
 * environment that is not ready), and is the only place that knows about `process`.
 */
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import type { SandboxMode } from "../config/index.ts";
import { EXIT } from "./exit-codes.ts";
import { redactedIO, type CliIO } from "./io.ts";
import { packageRoot } from "./package-root.ts";

export type { CliIO } from "./io.ts";

export function processIO(): CliIO {
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    cwd: process.cwd(),
    env: process.env,
    isTTY: process.stdout.isTTY === true,
    exit: (code) => process.exit(code),
  };
}

/** naruto's version, from its package.json. */
export function narutoVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

const EXIT_CODES = `
Exit codes:
  0  done; a mission ended with verdict approve
  1  the answer is no: a mission ended without approval, a plan or proof was rejected
  2  bad usage, or something to fix first (not a repository, an invalid plan, a missing agent CLI)

Unexpected errors print one line and write their trace to a file; --debug (or NARUTO_DEBUG=1)
prints it instead.`;

/**
 * The config's SANDBOX_MODES, spelled out: importing them would load the config's schema and zod,
 * about half the time `naruto --help` took. `satisfies` keeps the two equal (a mode missing here,
 * or one too many, does not compile).
 */
const SANDBOX_CHOICES = Object.keys({ auto: true, required: true, none: true } satisfies Record<SandboxMode, true>);

const positiveInt = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1`);
  return n;
};

// Each command's implementation is imported when it runs (`await import`), so that
// `naruto --help` and `--version` load commander and little else: in the build each is a chunk
// of its own (scripts/build.ts), read from disk only when its command runs.

/** Runs the CLI and returns the exit code. */
export async function main(argv: readonly string[], given: CliIO = processIO()): Promise<number> {
  const io = redactedIO(given);
  let code = 0;
  const program = new Command("naruto")
    .description("One request, many coding agents in parallel, safely.")
    .version(narutoVersion(), "-V, --version", "print naruto's version")
    .option("--debug", "print the full trace of an unexpected error", false)
    .addHelpText("after", EXIT_CODES)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();

  program
    .command("plan")
    .description("validate a plan, prove that no two items running at once write the same path, and estimate its schedule")
    .argument("<file>", "the plan (YAML, JSON, or markdown with a ```naruto block); - reads standard input")
    .option("--json", "print one JSON object (ok, items, conflicts, schedule, proof, errors)", false)
    .option("--strict", "reject conflicting items the plan does not order itself, instead of ordering them", false)
    .option("--max-parallel <n>", "agents at once, for the estimated schedule", positiveInt("--max-parallel"))
    .option("--max-items <n>", "raise the item limit (default 1,000 or limits.max_items)", positiveInt("--max-items"))
    .action(async (file: string, o: { json: boolean; strict: boolean; maxParallel?: number; maxItems?: number }) => {
      const { workingTreeConfig } = await import("./working-config.ts");
      const { planCommand } = await import("./plan-command.ts");
      const config = await workingTreeConfig(io);
      code = await planCommand(io, file, { json: o.json, strict: o.strict, maxParallel: o.maxParallel ?? null, maxItems: o.maxItems ?? null }, config);
    });

  program
    .command("verify-proof")
    .description("check a no-overlap proof against its plan with the independent checker (exit 0 ok, 1 rejected)")
    .argument("<plan>", "the plan file")
    .argument("<proof>", "the proof document (naruto.proof/v1)")
    .action(async (plan: string, proof: string) => {
      const { verifyProofCommand } = await import("./plan-command.ts");
      code = await verifyProofCommand(io, plan, proof);
    });

  program
    .command("run")
    .description("run a mission in this repository; the result is the queue branch naruto/<mission>")
    .option("--plan <file>", "an explicit plan (- reads standard input)")
    .option("--task <text>", "the request; without --plan the planner agent plans it")
    .option("--agent <command>", "the command of the default agent profile (run with sh -c in each worker's work tree)")
    .addOption(new Option("--parallel <n>", "agents at once").argParser(positiveInt("--parallel")))
    .option("--base <ref>", "where the queue starts (default HEAD)")
    .option("--verify <command>", "verify command for each queue batch (default queue.verify)")
    .option("--strict", "reject conflicting items the plan does not order itself", false)
    .addOption(
      new Option(
        "--sandbox <mode>",
        "run agents and verify commands under bubblewrap: auto (when it works), required, or none (default: the config's sandbox:)",
      ).choices(SANDBOX_CHOICES),
    )
    .option(
      "--workdir <dir>",
      "where the agents' work directories are made, outside the repository (default: the config's workdir:, else $XDG_CACHE_HOME/naruto)",
    )
    .option(
      "--read <path>",
      "a folder or file the default agent needs (the --agent command's folder, say), shown read-only in its sandbox; it must exist (repeatable)",
      (value: string, all: string[]) => [...all, value],
      [] as string[],
    )
    .option(
      "--login",
      "agents of the claude, codex and gemini presets use their CLI's login on this machine: a copy of its login file in each agent's private home, never a refresh token its CLI would rotate (see docs/agents.md)",
      false,
    )
    .option("--json", "print the result object (the mission, its items and verdict) as JSON", false)
    .action(
      async (o: {
        plan?: string;
        task?: string;
        agent?: string;
        parallel?: number;
        base?: string;
        verify?: string;
        sandbox?: SandboxMode;
        workdir?: string;
        read: string[];
        login: boolean;
        json: boolean;
        strict: boolean;
      }) => {
        const { runCommand } = await import("./mission-commands.ts");
        code = await runCommand(io, o);
      },
    );

  program
    .command("status")
    .description("list missions, or show one")
    .argument("[id]", "a mission id (m-…)")
    .option("--json", "print the result object (the mission, its items and verdict) as JSON", false)
    .action(async (id: string | undefined, o: { json: boolean }) => {
      const { statusCommand } = await import("./mission-commands.ts");
      code = await statusCommand(io, id, o.json);
    });

  program
    .command("resume")
    .description("finish a mission whose `naruto run` was stopped, without redoing integrated items")
    .argument("<id>", "the mission id")
    .option("--json", "print the result object", false)
    .action(async (id: string, o: { json: boolean }) => {
      const { resumeCommand } = await import("./mission-commands.ts");
      code = await resumeCommand(io, id, o.json);
    });

  program
    .command("refresh")
    .description("replay a mission's queue onto its base branch as it is now (the base moved), verify it, and review it again")
    .argument("<id>", "the mission id")
    .option("--onto <ref>", "refresh onto this branch, tag or commit instead of the mission's base branch")
    .option("--json", "print the result object", false)
    .action(async (id: string, o: { onto?: string; json: boolean }) => {
      const { refreshCommand } = await import("./mission-commands.ts");
      code = await refreshCommand(io, id, { onto: o.onto ?? null, json: o.json });
    });

  program
    .command("cancel")
    .description("cancel a mission; its running agents are stopped")
    .argument("<id>", "the mission id")
    .action(async (id: string) => {
      const { cancelCommand } = await import("./mission-commands.ts");
      code = await cancelCommand(io, id);
    });

  program
    .command("clean")
    .description(
      "delete what finished missions left: worker branches of integrated items and work directories (queue branches and work found nowhere else stay)",
    )
    .option("--older-than <age>", "only missions that ended at least this long ago, e.g. 7d or 12h")
    .option("--mission <id>", "only this mission")
    .option("--queues", "also delete the queue branches naruto/<mission> (the missions' results)", false)
    .option(
      "--kept",
      "also delete work found nowhere else: worker branches of items not integrated, and work kept from stopped attempts (refs/naruto/attempts/…)",
      false,
    )
    .option("--dry-run", "list what would be deleted; delete nothing", false)
    .action(async (o: { olderThan?: string; mission?: string; queues: boolean; kept: boolean; dryRun: boolean }) => {
      const { cleanCommand } = await import("./clean-command.ts");
      code = await cleanCommand(io, o);
    });

  program
    .command("init")
    .description("set naruto up in this repository: write .github/workflows/naruto.yml and .github/naruto.yml, then say what only you can do")
    .option("--agent <name>", "the agent: claude, codex, gemini, aider or command (default: the first of them on your PATH, else claude)")
    .option("--command <cmd>", "with --agent command: the command that runs your agent (it gets the prompt in $NARUTO_PROMPT_FILE)")
    .option("--app [slug]", "the naruto GitHub App takes the comments (leaves out the command and watch jobs); its slug names its install page and login")
    .option("--repo <owner/name>", "the GitHub repository (default: the one origin names)")
    .option("--force", "replace the files when they exist and differ", false)
    .option("--dry-run", "print the diff of what would be written; write nothing", false)
    .action(async (o: { agent?: string; command?: string; app?: boolean | string; repo?: string; force: boolean; dryRun: boolean }) => {
      const { initCommand } = await import("./init-command.ts");
      code = await initCommand(io, o);
    });

  program
    .command("upgrade")
    .description("bring .github/workflows/naruto.yml to this naruto's template, keeping what is inside its `yours` blocks")
    .option("--dry-run", "print the diff; write nothing", false)
    .action(async (o: { dryRun: boolean }) => {
      const { upgradeCommand } = await import("./upgrade-command.ts");
      code = await upgradeCommand(io, o);
    });

  program
    .command("doctor")
    .description(
      "check this repository's naruto setup against GitHub: the workflow, secrets, settings, variables and the App, each with its fix (exit 0: nothing stops a mission)",
    )
    .option("--repo <owner/name>", "the GitHub repository (default: the one origin names)")
    .option("--token <token>", "a GitHub token (default: GITHUB_TOKEN or GH_TOKEN, else `gh auth token`); secrets and Actions settings need an admin's")
    .option("--api-url <url>", "the REST API's address (default: api.github.com, or https://HOST/api/v3 for origin's GitHub Enterprise Server)")
    .option("--app-id <id>", "the App's id, to check its installation (with --private-key)")
    .option("--private-key <file>", "the App's private key (.pem)")
    .option("--app-env <file>", "the App server's .env, for APP_ID and PRIVATE_KEY or PRIVATE_KEY_PATH")
    .action(async (o: { repo?: string; token?: string; apiUrl?: string; appId?: string; privateKey?: string; appEnv?: string }) => {
      const { doctorCommand } = await import("./doctor-command.ts");
      code = await doctorCommand(io, o);
    });

  program
    .command("demo")
    .description("run a whole mission on a bundled example project (no network, no keys)")
    .option("--no-keep", "remove the temporary repository when the mission ends (by default it is kept, and its path printed)")
    .option("--json", "print the result object", false)
    .action(async (o: { json: boolean; keep: boolean }) => {
      const { demoCommand } = await import("./demo-command.ts");
      code = await demoCommand(io, o);
    });

  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const debug = program.opts<{ debug?: boolean }>().debug === true || io.env.NARUTO_DEBUG === "1";
    const { reportError } = await import("./errors.ts");
    return reportError(io, e, { debug, traceDir: io.env.TMPDIR ?? tmpdir(), now: new Date() });
  }
  return code;
}
