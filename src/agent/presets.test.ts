import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PRESETS, type PresetName } from "../config/index.ts";
import type { AgentResult } from "./agent-result.ts";
import { runAgent } from "./run-agent.ts";
import { bareWorkDir, bwrapSandbox, bwrapSkipReason, unsandboxed } from "../../test/support/sandbox.ts";
import type { Sandbox } from "../sandbox/index.ts";

// Stand-ins for the agent CLIs: each records its arguments and stdin, and prints output in the
// shape AGENTS.md documents for the real CLI, so the presets' result parsers run for real.
const FAKE_CLIS: Record<PresetName, (log: string, rc: number) => string> = {
  claude: (log, rc) => `#!/bin/sh
printf '%s\\n' "$@" > ${log}/args; cat > ${log}/stdin
echo '{"type":"result","subtype":"success","is_error":false,"result":"did it","total_cost_usd":0.5,"usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":7},"modelUsage":{"claude-sonnet-x":{}}}'
exit ${rc}`,
  codex: (log, rc) => `#!/bin/sh
printf '%s\\n' "$@" > ${log}/args; cat > ${log}/stdin
while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then shift; printf 'codex summary' > "$1"; fi; shift; done
echo '{"type":"thread.started"}'
echo '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":2,"output_tokens":3}}'
echo 'not json'
echo '{"type":"turn.completed","usage":{"input_tokens":5,"output_tokens":1}}'
exit ${rc}`,
  aider: (log, rc) => `#!/bin/sh
printf '%s\\n' "$@" > ${log}/args; cat > ${log}/stdin
while [ $# -gt 0 ]; do if [ "$1" = "--analytics-log" ]; then shift; out="$1"; fi; shift; done
echo '{"event":"launched"}' > "$out"
echo '{"event":"message_send","properties":{"prompt_tokens":100,"completion_tokens":20,"total_cost":0.01,"main_model":"sonnet-x"}}' >> "$out"
echo '{"event":"message_send","properties":{"prompt_tokens":50,"completion_tokens":5,"total_cost":0.02,"main_model":"sonnet-x"}}' >> "$out"
echo "Tokens: 150 sent, 25 received."
exit ${rc}`,
  gemini: (log, rc) => `#!/bin/sh
printf '%s\\n' "$@" > ${log}/args; cat > ${log}/stdin
echo "trust=$GEMINI_CLI_TRUST_WORKSPACE" >> ${log}/args
echo '{"response":"gem","stats":{"models":{"gemini-x":{"tokens":{"prompt":3,"candidates":4,"thoughts":1}}}}}'
exit ${rc}`,
};

const EXPECTED: Record<PresetName, AgentResult> = {
  claude: { summary: "did it", cost_usd: 0.5, tokens_in: 15, tokens_out: 7, model: "claude-sonnet-x", failure: null },
  codex: { summary: "codex summary", cost_usd: null, tokens_in: 15, tokens_out: 4, model: null, failure: null },
  aider: { summary: "aider run", cost_usd: 0.02, tokens_in: 150, tokens_out: 25, model: "sonnet-x", failure: null },
  gemini: { summary: "gem", cost_usd: null, tokens_in: 3, tokens_out: 5, model: "gemini-x", failure: null },
};

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "naruto-presets-"));
  await mkdir(join(dir, "bin"));
  await mkdir(join(dir, "log"));
});

const workDirs: Awaited<ReturnType<typeof bareWorkDir>>[] = [];
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await Promise.all(workDirs.splice(0).map((w) => w.remove()));
});

/** How a preset is run against a stand-in CLI. */
interface PresetRun {
  /** The stand-in `NAME` on PATH; null: the CLI is not installed. */
  readonly script: string | null;
  /** More of the runner's environment (PATH is the stand-ins' folder, then `path`). */
  readonly env?: Record<string, string>;
  /** What follows the stand-ins' folder on PATH (default the test's PATH). */
  readonly path?: string;
  readonly sandbox?: Sandbox;
  readonly readOnly?: readonly string[];
  readonly writes?: readonly string[];
}

/** Runs preset `name`'s command as naruto does, with `script` as its CLI. */
async function runWith(name: PresetName, input: PresetRun) {
  if (input.script !== null) {
    await writeFile(join(dir, "bin", name), input.script);
    await chmod(join(dir, "bin", name), 0o755);
  }
  const workDir = await bareWorkDir();
  workDirs.push(workDir);
  const agent = await runAgent({
    command: PRESETS[name].command,
    sandbox: input.sandbox ?? unsandboxed(),
    workDir,
    prompt: "# the prompt\n",
    env: { PATH: `${join(dir, "bin")}:${input.path ?? process.env.PATH}`, ...input.env },
    allowEnv: PRESETS[name].env,
    network: true,
    readOnly: [join(dir, "bin"), ...(input.readOnly ?? [])],
    mission: "m-test",
    item: "x",
    attempt: 1,
    writes: [...(input.writes ?? ["src/"])],
    timeoutMs: 60_000,
  });
  return { ...agent, workDir };
}

function runPreset(name: PresetName, rc: number, script = FAKE_CLIS[name](join(dir, "log"), rc)) {
  return runWith(name, { script });
}

describe("agent presets (run against stand-in CLIs)", () => {
  it.each(["claude", "codex", "aider", "gemini"] as const)("%s gets the prompt and reports its result", async (name) => {
    const agent = await runPreset(name, 0);
    expect(agent.outcome).toBe("exited");
    expect(agent.notes).toEqual([]);
    expect(agent.result).toEqual(EXPECTED[name]);
    const args = await readFile(join(dir, "log", "args"), "utf8");
    if (name === "aider") expect(args).toContain(`--message-file\n${agent.files?.prompt}\n`);
    else expect(await readFile(join(dir, "log", "stdin"), "utf8")).toBe("# the prompt\n");
    // Raw output goes to mktemp files, never into the work directory.
    expect(await readdir(agent.workDir.path)).toEqual([]);
  });

  it.each(["claude", "codex", "aider", "gemini"] as const)("%s keeps the agent's exit code", async (name) => {
    const agent = await runPreset(name, 7);
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: 7 });
    expect(agent.result).toEqual(EXPECTED[name]);
  });

  it("aider fails an attempt that made no model call, although aider exits 0", async () => {
    const silent = `#!/bin/sh
while [ $# -gt 0 ]; do if [ "$1" = "--analytics-log" ]; then shift; echo '{"event":"launched"}' > "$1"; fi; shift; done
exit 0`;
    const agent = await runPreset("aider", 0, silent);
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: 1 });
    expect(agent.output).toContain("aider made no model call");
    expect(agent.result?.summary).toBe("aider made no model call");
  });

  it("passes the flags AGENTS.md checked", async () => {
    await runPreset("claude", 0);
    expect(await readFile(join(dir, "log", "args"), "utf8")).toContain("--disallowedTools\nBash(git commit:*),Bash(git push:*)\n");
    await runPreset("codex", 0);
    expect(await readFile(join(dir, "log", "args"), "utf8")).toMatch(/^exec\n--sandbox\nworkspace-write\n/);
    await runPreset("aider", 0);
    expect(await readFile(join(dir, "log", "args"), "utf8")).toContain("--no-auto-commits\n--no-dirty-commits\n");
    await runPreset("gemini", 0);
    expect(await readFile(join(dir, "log", "args"), "utf8")).toContain("trust=true");
  });
});

// Gemini CLI 0.61.0's own output, in the shape measured with the real CLI against the scripted
// server of scripts/agents-check: its router answers first, so `stats.models` lists the router
// (role `utility_router`) before the main model (role `main`).
describe("gemini preset on Gemini CLI 0.61.0's output", () => {
  function geminiModel(tokens: { prompt: number; candidates: number; thoughts?: number; cached?: number }, role?: string) {
    const t = {
      input: tokens.prompt - (tokens.cached ?? 0),
      prompt: tokens.prompt,
      candidates: tokens.candidates,
      total: tokens.prompt + tokens.candidates + (tokens.thoughts ?? 0),
      cached: tokens.cached ?? 0,
      thoughts: tokens.thoughts ?? 0,
      tool: 0,
    };
    return {
      api: { totalRequests: 1, totalErrors: 0, totalLatencyMs: 50, errorsByType: {} },
      tokens: t,
      ...(role === undefined ? {} : { roles: { [role]: { totalRequests: 1, totalErrors: 0, totalLatencyMs: 50, tokens: t } } }),
    };
  }

  /** A stand-in `gemini` that prints `stdout` and `stderr` (files, so any JSON passes) and exits `rc`. */
  async function runGemini(output: { stdout: string; stderr?: string; rc?: number }) {
    await writeFile(join(dir, "stdout"), output.stdout);
    await writeFile(join(dir, "stderr"), output.stderr ?? "YOLO mode is enabled. All tool calls will be automatically approved.\n");
    return runPreset("gemini", 0, `#!/bin/sh\ncat > /dev/null\ncat ${join(dir, "stdout")}\ncat ${join(dir, "stderr")} >&2\nexit ${output.rc ?? 0}`);
  }

  it("records the main model, not the router listed first, and adds up the tokens of both", async () => {
    const models = {
      "gemini-3.5-flash-lite": geminiModel({ prompt: 900, candidates: 20 }, "utility_router"),
      "gemini-3.8-flash": geminiModel({ prompt: 2400, candidates: 100, thoughts: 5, cached: 400 }, "main"),
    };
    const agent = await runGemini({ stdout: JSON.stringify({ session_id: "s", response: "wrote it", stats: { models, tools: {}, files: {} } }, null, 2) });
    expect(agent.result).toEqual({ summary: "wrote it", cost_usd: null, tokens_in: 3300, tokens_out: 125, model: "gemini-3.8-flash", failure: null });
  });

  it("without roles (older CLIs), records the model that used the most tokens", async () => {
    const models = { "router-x": geminiModel({ prompt: 50, candidates: 5 }), "main-x": geminiModel({ prompt: 700, candidates: 30 }) };
    const agent = await runGemini({ stdout: JSON.stringify({ response: "ok", stats: { models } }) });
    expect(agent.result?.model).toBe("main-x");
  });

  it("records no model when only utility models answered", async () => {
    const models = { "gemini-3.5-flash-lite": geminiModel({ prompt: 10, candidates: 2 }, "utility_router") };
    const agent = await runGemini({ stdout: JSON.stringify({ response: "", stats: { models } }) });
    expect(agent.result).toMatchObject({ tokens_in: 10, tokens_out: 2, model: null });
  });

  it("takes the error from standard error, where a failed run prints its JSON, and still shows standard error", async () => {
    // Recorded from 0.61.0 with no usable auth settings (exit 41).
    const stderr = `Security Warning: Skipping system settings file '/tmp/s/settings.json': Parent directory '/tmp' is insecure
YOLO mode is enabled. All tool calls will be automatically approved.
{
  "session_id": "151ac095-ebed-4547-89ff-254b3804598f",
  "error": {
    "type": "Error",
    "message": "Invalid auth method selected.",
    "code": 41
  }
}
`;
    const agent = await runGemini({ stdout: "", stderr, rc: 41 });
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: 41 });
    expect(agent.result).toEqual({
      summary: "Invalid auth method selected.",
      cost_usd: null,
      tokens_in: 0,
      tokens_out: 0,
      model: null,
      failure: { kind: "authentication", message: "Invalid auth method selected." },
    });
    expect(agent.output).toContain("Security Warning: Skipping system settings file");
  });

  /** A user's Gemini home: settings that select an auth type, and a Google login. */
  async function geminiHome() {
    const home = join(dir, "gemini-home");
    await mkdir(join(home, ".gemini"), { recursive: true });
    await writeFile(join(home, ".gemini", "settings.json"), '{"security":{"auth":{"selectedType":"gemini-api-key"}}}\n');
    await writeFile(join(home, ".gemini", "oauth_creds.json"), '{"refresh_token":"the-users"}\n');
    return home;
  }

  // Says where its home is, what its settings say and whether it can write beside them, as
  // Gemini CLI must at start (its project registry).
  const homeProbe = `#!/bin/sh
cat > /dev/null
echo "home=$GEMINI_CLI_HOME" >&2
cat "$GEMINI_CLI_HOME/.gemini/settings.json" >&2
echo '{}' > "$GEMINI_CLI_HOME/.gemini/projects.json" && echo home-writable >&2
echo '{"response":"ok","stats":{"models":{}}}'`;

  function runWithHome(input: { home: string; sandbox: Sandbox }) {
    return runWith("gemini", { script: homeProbe, env: { GEMINI_CLI_HOME: input.home }, sandbox: input.sandbox, readOnly: [input.home] });
  }

  it("passes GEMINI_CLI_HOME through, and uses it as it is where Gemini can write it", async () => {
    const home = await geminiHome();
    const agent = await runWithHome({ home, sandbox: unsandboxed() });
    expect(agent.outcome).toBe("exited");
    // A folder, not a secret: not redacted (src/redact/secrets.ts).
    expect(agent.output).toContain(`home=${home}\n{"security":{"auth":{"selectedType":"gemini-api-key"}}}\nhome-writable\n`);
    expect((await readdir(join(home, ".gemini"))).sort()).toEqual(["oauth_creds.json", "projects.json", "settings.json"]);
  });

  it.skipIf(bwrapSkipReason !== null)(
    `in the sandbox, where GEMINI_CLI_HOME is read-only, copies its settings (not its login) into the private HOME${bwrapSkipReason ? ` (skipped: ${bwrapSkipReason})` : ""}`,
    async () => {
      const home = await geminiHome();
      const agent = await runWithHome({ home, sandbox: await bwrapSandbox() });
      expect(agent.outcome, agent.output).toBe("exited");
      expect(agent.output).toContain(`home=${agent.workDir.home}\n{"security":{"auth":{"selectedType":"gemini-api-key"}}}\nhome-writable\n`);
      // The user's home is as it was, and their login was never copied.
      expect((await readdir(join(home, ".gemini"))).sort()).toEqual(["oauth_creds.json", "settings.json"]);
      expect((await readdir(join(agent.workDir.home, ".gemini"))).sort()).toEqual(["projects.json", "settings.json"]);
    },
  );
});

// Claude Code 2.1.328's result object, in the shape measured with the real CLI against the
// scripted server of scripts/agents-check (fields naruto does not read left out).
describe("claude preset on Claude Code 2.1.328's refusals and errors", () => {
  function claudeResult(fields: { is_error: boolean; subtype: string; result?: string; errors?: string[]; permission_denials?: unknown[] }) {
    return JSON.stringify({
      type: "result",
      total_cost_usd: 0.00004,
      usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 2 },
      modelUsage: { "claude-sonnet-5-5": { inputTokens: 10, outputTokens: 2 } },
      permission_denials: [],
      num_turns: 2,
      ...fields,
    });
  }
  const denied = (tool_name: string, tool_input: Record<string, string>) => ({ tool_name, tool_use_id: `toolu_${tool_name}`, tool_input });

  /** A stand-in `claude` that prints `json` (from a file, so any JSON passes) and exits `rc`. */
  async function runClaude(json: string, rc = 0) {
    await writeFile(join(dir, "stdout"), `${json}\n`);
    return runPreset("claude", rc, `#!/bin/sh\ncat > /dev/null\ncat ${join(dir, "stdout")}\nexit ${rc}`);
  }

  it("fails an attempt whose edits Claude Code refused (it exits 0), naming each refused call", async () => {
    const json = claudeResult({
      is_error: false,
      subtype: "success",
      result: "done",
      permission_denials: [
        denied("Write", { file_path: "/w/work/.git/hooks/post-commit", content: "#!/bin/sh\n" }),
        denied("Write", { file_path: "/w/outside.txt", content: "x\n" }),
      ],
    });
    const agent = await runClaude(json);
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: 1 });
    expect(agent.output).toContain(
      "naruto: Claude Code refused 2 tool call(s): Write /w/work/.git/hooks/post-commit; Write /w/outside.txt: failing the attempt",
    );
    // The usage is kept all the same: the attempt cost what it cost.
    expect(agent.result).toEqual({ summary: "done", cost_usd: 0.00004, tokens_in: 10, tokens_out: 2, model: "claude-sonnet-5-5", failure: null });
  });

  it("shows why Claude Code ended with an error, and keeps its exit code", async () => {
    const agent = await runClaude(claudeResult({ is_error: true, subtype: "error_max_turns", errors: ["Reached maximum number of turns (80)"] }), 1);
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: 1 });
    expect(agent.output).toContain("naruto: Claude Code ended with an error (error_max_turns): Reached maximum number of turns (80): failing the attempt");
  });

  it("fails on is_error even when Claude Code exits 0", async () => {
    const agent = await runClaude(claudeResult({ is_error: true, subtype: "success", result: "API Error: 500 overloaded" }));
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: 1 });
    expect(agent.output).toContain("Claude Code ended with an error (success): API Error: 500 overloaded");
  });

  it("lets a refused git commit or push pass: that refusal is the preset's own rule, and naruto commits the work", async () => {
    const json = claudeResult({
      is_error: false,
      subtype: "success",
      result: "committed",
      permission_denials: [
        denied("Bash", { command: "git add -A && git commit -qam 'mine'", description: "commit" }),
        denied("Bash", { command: "git push origin HEAD" }),
      ],
    });
    const agent = await runClaude(json);
    expect(agent.outcome).toBe("exited");
    expect(agent.output).not.toContain("naruto:");
    expect(agent.result?.summary).toBe("committed");
  });
});

// Codex CLI 0.169.0, as measured with the real CLI against the scripted server of
// scripts/agents-check: it must be able to write its home (`installation_id`, SQLite state,
// `tmp/arg0`), and a write its own sandbox refused comes as an `item.completed` of type
// `file_change` with `status: "failed"` while Codex still exits 0.
describe("codex preset on Codex CLI 0.169.0's home and failed writes", () => {
  /** Runs the codex preset with `script` as `codex` (none: not installed) and `env` passed as the runner's. */
  function runCodex(input: { script: string | null; env?: Record<string, string>; sandbox?: Sandbox; readOnly?: string[] }) {
    return runWith("codex", { ...input, writes: ["notes/"] });
  }

  /** A user's Codex home: a config.toml pointing at a provider, and a ChatGPT login. */
  async function codexHome() {
    const home = join(dir, "codex-home");
    await mkdir(home);
    await writeFile(join(home, "config.toml"), 'model_provider = "mine"\n');
    await writeFile(join(home, "auth.json"), '{"tokens":{"refresh_token":"the-users"}}\n');
    return home;
  }

  // Says where its home is, what is in it and whether it can write it, as Codex must at start.
  const homeProbe = `#!/bin/sh
cat > /dev/null
echo "home=$CODEX_HOME" >&2
ls "$CODEX_HOME" | tr '\\n' ' ' >&2; echo >&2
cat "$CODEX_HOME/config.toml" >&2
echo id > "$CODEX_HOME/installation_id" && echo home-writable >&2
exit 0`;

  it("passes CODEX_HOME through, and uses it as it is where Codex can write it", async () => {
    const home = await codexHome();
    const agent = await runCodex({ script: homeProbe, env: { CODEX_HOME: home } });
    expect(agent.outcome).toBe("exited");
    expect(agent.output).toContain(`home=${home}\n`);
    expect(agent.output).toContain("home-writable");
  });

  it.skipIf(bwrapSkipReason !== null)(
    `in the sandbox, where CODEX_HOME is read-only, copies its config.toml (not its login) into a Codex home in the private HOME${bwrapSkipReason ? ` (skipped: ${bwrapSkipReason})` : ""}`,
    async () => {
      const home = await codexHome();
      const agent = await runCodex({ script: homeProbe, env: { CODEX_HOME: home }, sandbox: await bwrapSandbox(), readOnly: [home] });
      expect(agent.outcome, agent.output).toBe("exited");
      expect(agent.output).toContain(`home=${join(agent.workDir.home, ".codex")}\n`);
      expect(agent.output).toContain('config.toml \nmodel_provider = "mine"\nhome-writable\n');
      // The user's home is as it was: no installation_id, and their login was never copied.
      expect((await readdir(home)).sort()).toEqual(["auth.json", "config.toml"]);
      expect((await readdir(join(agent.workDir.home, ".codex"))).sort()).toEqual(["config.toml", "installation_id"]);
    },
  );

  /** A stand-in `codex` that prints these events (paths relative to its working directory made absolute) and exits `rc`. */
  function codexEvents(events: readonly object[], rc = 0): string {
    const lines = events.map((e) => JSON.stringify(e).replaceAll("@WORK@", "'\"$PWD\"'"));
    return `#!/bin/sh
cat > /dev/null
while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then shift; printf 'I could not write the notes' > "$1"; fi; shift; done
${lines.map((l) => `echo '${l}'`).join("\n")}
exit ${rc}`;
  }
  const fileChange = (id: string, status: "completed" | "failed", ...paths: string[]) => ({
    type: "item.completed",
    item: { id, type: "file_change", changes: paths.map((p) => ({ path: `@WORK@/${p}`, kind: "add" })), status },
  });
  const turn = { type: "turn.completed", usage: { input_tokens: 1200, cached_input_tokens: 0, output_tokens: 80 } };

  it("fails an attempt whose every write Codex could not make (it exits 0), naming the files, and keeps the usage", async () => {
    const agent = await runCodex({
      script: codexEvents([
        { type: "thread.started", thread_id: "t" },
        fileChange("item_1", "failed", "notes/a.txt"),
        fileChange("item_2", "failed", "notes/a.txt", "notes/b.txt"),
        turn,
      ]),
    });
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: 1 });
    expect(agent.output).toContain(
      "naruto: Codex could not write notes/a.txt, notes/b.txt (its sandbox refused it, or the patch did not apply), and wrote nothing else: failing the attempt",
    );
    expect(agent.result).toEqual({ summary: "I could not write the notes", cost_usd: null, tokens_in: 1200, tokens_out: 80, model: null, failure: null });
  });

  it("keeps Codex's own exit code when it failed too", async () => {
    const agent = await runCodex({ script: codexEvents([fileChange("item_1", "failed", "notes/a.txt"), turn], 3) });
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: 3 });
    expect(agent.output).toContain("naruto: Codex could not write notes/a.txt");
  });

  it("lets an attempt pass whose failed patch Codex then made another way", async () => {
    const agent = await runCodex({
      script: codexEvents([fileChange("item_1", "failed", "notes/a.txt"), fileChange("item_2", "completed", "notes/a.txt"), turn]),
    });
    expect(agent.outcome).toBe("exited");
    expect(agent.output).not.toContain("naruto:");
  });

  it.each([
    ["not installed", null, 127],
    ["crashing before any output", "#!/bin/sh\necho 'codex: failed to initialize' >&2\nexit 1", 1],
    ["printing no JSON", "#!/bin/sh\necho 'Error: something' \necho '{\"type\":' \necho null\nexit 2", 2],
  ] as const)("says nothing of its own (no Node stack) when Codex is %s: the reason is Codex's exit code and output", async (_, script, code) => {
    const agent = await runCodex({ script });
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: code });
    expect(agent.output).not.toMatch(/SyntaxError|TypeError|at JSON\.parse|node:internal|naruto:/);
  });
});

describe("each preset says when its CLI refused its credentials (as measured with the real CLIs)", () => {
  async function standIn(name: PresetName, out: string, rc: number, stream: "stdout" | "stderr" = "stdout") {
    await writeFile(join(dir, "out"), out);
    return runPreset(name, rc, `#!/bin/sh\ncat > /dev/null\ncat ${join(dir, "out")}${stream === "stderr" ? " >&2" : ""}\nexit ${rc}`);
  }

  it.each([
    // Claude Code 2.1.328 with no credentials at all, and with a key its API refused (401).
    ["no login", { is_error: true, subtype: "success", result: "Not logged in · Please run /login", api_error_status: null }],
    [
      "a refused key",
      { is_error: true, subtype: "success", result: "Invalid API key · Fix external API key", api_error_status: 401, api_error_type: "authentication_error" },
    ],
  ])("claude: %s", async (_case, fields) => {
    const agent = await standIn("claude", JSON.stringify({ type: "result", usage: {}, modelUsage: {}, permission_denials: [], ...fields }), 1);
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: 1 });
    expect(agent.result?.failure).toEqual({ kind: "authentication", message: fields.result });
  });

  it("claude: any other error is no word about credentials", async () => {
    const agent = await standIn(
      "claude",
      JSON.stringify({
        type: "result",
        is_error: true,
        subtype: "success",
        result: "API Error: 529 overloaded",
        api_error_status: 529,
        usage: {},
        modelUsage: {},
      }),
      1,
    );
    expect(agent.result?.failure).toBeNull();
  });

  it("codex: a 401 from its model server, in a turn.failed event (Codex 0.169.0)", async () => {
    const message = "unexpected status 401 Unauthorized: invalid x-api-key, url: http://127.0.0.1:8912/v1/responses";
    const events = [
      { type: "thread.started", thread_id: "t" },
      { type: "turn.started" },
      { type: "error", message },
      { type: "turn.failed", error: { message } },
    ];
    const agent = await standIn("codex", `${events.map((e) => JSON.stringify(e)).join("\n")}\n`, 1);
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: 1 });
    expect(agent.result?.failure).toEqual({ kind: "authentication", message });
  });

  it.each([
    [
      "no auth method (exit 41)",
      41,
      "Please set an Auth method in your /home/u/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA",
    ],
    ["a refused key (401)", 401, '{"error":{"code":401,"message":"API key not valid"}}'],
  ])("gemini: %s", async (_case, code, message) => {
    const agent = await standIn("gemini", JSON.stringify({ session_id: "s", error: { type: "Error", message, code } }, null, 2), code & 0xff, "stderr");
    expect(agent.result?.failure).toEqual({ kind: "authentication", message });
  });
});

describe("every preset's result parser on a CLI that printed no result", () => {
  /** Runs a preset whose CLI is `script` (null: not installed); PATH has no real agent CLI. */
  function runBare(name: PresetName, script: string | null) {
    return runWith(name, { script, path: `/usr/bin:/bin:${join(process.execPath, "..")}`, env: { HOME: dir } });
  }

  it.each([
    ["claude", null, 127],
    ["claude", "#!/bin/sh\necho 'Error: could not start' >&2\nexit 1", 1],
    ["claude", "#!/bin/sh\necho 'not json'\nexit 2", 2],
    ["gemini", null, 127],
    ["gemini", "#!/bin/sh\necho 'Error: could not start' >&2\nexit 1", 1],
    ["gemini", "#!/bin/sh\necho 'not json'\nexit 2", 2],
  ] as const)("%s (%s) keeps the CLI's exit code, and no Node stack hides the CLI's own words", async (name, script, code) => {
    const agent = await runBare(name, script);
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: code });
    expect(agent.output).not.toMatch(/SyntaxError|TypeError|at JSON\.parse|node:internal|^\s+at /m);
    if (script !== null) expect(agent.output).toContain(script.includes("could not start") ? "Error: could not start" : "not json");
  });
});
