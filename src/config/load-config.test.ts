import { describe, expect, it } from "vitest";
import { formatConfigErrors, loadConfig } from "./load-config.ts";
import { PRESETS } from "./presets.ts";
import type { Config, ConfigError } from "./types.ts";

function configOf(text: string | null): Config {
  const result = loadConfig(text);
  if (!result.ok) throw new Error(`expected a valid config, got:\n${formatConfigErrors(result.errors)}`);
  return result.config;
}

function errorsOf(text: string): readonly ConfigError[] {
  const result = loadConfig(text);
  if (result.ok) throw new Error("expected the config to be rejected");
  return result.errors;
}

describe("loadConfig defaults", () => {
  it.each([
    ["no file", null],
    ["an empty file", ""],
    ["a file of comments", "# nothing yet\n"],
    ["only the version", "version: 1\n"],
  ])("%s gives every default", (_, text) => {
    const config = configOf(text);
    expect(config.limits).toEqual({
      max_parallel: 4,
      max_attempts: 2,
      item_timeout: 30 * 60_000,
      queue_timeout: 2 * 60 * 60_000,
      mission_timeout: 6 * 3_600_000,
      max_items: 1000,
      max_cost_usd: null,
      min_permission: "write",
      max_file_size: 50 * 1024 * 1024,
      agent_processes: 1024,
      agent_memory: 8 * 1024 ** 3,
      agent_file_size: 1024 ** 3,
      agent_tmp_size: 1024 ** 3,
    });
    expect(config.queue).toEqual({ verify: null, batch: 8, env: [], verify_report: null, red_base: "stop", confirm_runs: 1, max_flips: 10, refresh: "manual" });
    expect(config).toMatchObject({ sandbox: "auto", workdir: null });
    expect(config.planner).toEqual({ agent: "default" });
    expect(config.arbiter).toEqual({ agent: null });
    expect(config.protected.map((p) => p.path)).toEqual([
      ".github/",
      "CODEOWNERS",
      "docs/CODEOWNERS",
      ".claude/",
      ".mcp.json",
      ".codex/",
      ".gemini/",
      ".aider.conf.yml",
      ".aider.model.settings.yml",
      ".aider.model.metadata.json",
      ".aiderignore",
      ".env",
    ]);
    expect(config).toMatchObject({ allow_protected: false, allow: [], allow_bots: [], approval: false });
    expect(Object.keys(config.agents)).toEqual(["default", "claude", "codex", "aider", "gemini"]);
    expect(config.agents.default).toMatchObject({ command: PRESETS.claude.command, preset: "claude", timeout: 30 * 60_000 });
  });
});

describe("loadConfig agents", () => {
  it("builds the default profile from a preset, with extra env names and its own timeout", () => {
    const config = configOf("agents:\n  default: { preset: codex, timeout: 1h, env: [HTTPS_PROXY, MY_CA_BUNDLE] }\n");
    expect(config.agents.default).toEqual({
      name: "default",
      command: PRESETS.codex.command,
      timeout: 3_600_000,
      env: [...PRESETS.codex.env, "MY_CA_BUNDLE"],
      description: PRESETS.codex.description,
      preset: "codex",
      network: true,
      read: [],
      executables: ["codex", "node"],
      login: false,
    });
  });

  it("takes a command profile, times it with limits.item_timeout, and lets planner and arbiter use it", () => {
    const config = configOf(
      [
        "agents:",
        "  mine: { command: ./scripts/agent.sh, env: [MY_KEY], description: our wrapper }",
        "limits: { item_timeout: 10m }",
        "planner: { agent: mine }",
        "arbiter: { agent: gemini }",
      ].join("\n"),
    );
    expect(config.agents.mine).toEqual({
      name: "mine",
      command: "./scripts/agent.sh",
      timeout: 600_000,
      env: ["MY_KEY"],
      description: "our wrapper",
      preset: null,
      network: true,
      read: [],
      executables: [],
      login: false,
    });
    expect(config.agents.claude?.timeout).toBe(600_000);
    expect(config.planner.agent).toBe("mine");
    expect(config.arbiter.agent).toBe("gemini");
  });

  it("takes the sandbox of a profile: no network, the host's network, more folders to read", () => {
    const config = configOf(
      "sandbox: required\nworkdir: ~/naruto-work\nagents:\n  offline: { command: ./agent.sh, network: false, read: [/opt/agent, ~/.local/share/agent] }\n  local-model: { command: ./agent.sh, network: host }\nqueue: { env: [NODE_OPTIONS] }\n",
    );
    expect(config.agents.offline).toMatchObject({ network: false, read: ["/opt/agent", "~/.local/share/agent"] });
    expect(config.agents["local-model"]).toMatchObject({ network: "host" });
    expect(config.agents.default).toMatchObject({ network: true });
    expect(config).toMatchObject({ sandbox: "required", workdir: "~/naruto-work", queue: { env: ["NODE_OPTIONS"] } });
  });

  it.each([["none"], ["~"], ["null"]])("arbiter agent %s means no review agent", (value) => {
    expect(configOf(`arbiter: { agent: ${value} }`).arbiter.agent).toBeNull();
  });

  it("every preset allowlists its agent's auth variables and reads the prompt file on stdin", () => {
    const config = configOf(null);
    expect(config.agents.claude?.env).toContain("ANTHROPIC_API_KEY");
    expect(config.agents.codex?.env).toContain("CODEX_API_KEY");
    expect(config.agents.aider?.env).toContain("OPENAI_API_KEY");
    expect(config.agents.gemini?.env).toContain("GEMINI_API_KEY");
    for (const preset of Object.values(PRESETS)) {
      expect(preset.command).toMatch(/"\$NARUTO_PROMPT_FILE"/);
      expect(preset.command).toContain('"$NARUTO_RESULT_FILE"');
      expect(preset.command.trimEnd().endsWith("exit $rc")).toBe(true);
      expect(preset.env.some((name) => /GITHUB|GH_/.test(name))).toBe(false);
    }
  });
});

describe("loadConfig errors name the field and what is allowed", () => {
  it.each<[string, string, string, RegExp]>([
    ["a number too large", "limits:\n  max_parallel: 999", "limits.max_parallel", /at most 256/],
    ["a number too small", "queue: { batch: 0 }", "queue.batch", /at least 1/],
    ["a fraction", "limits: { max_attempts: 1.5 }", "limits.max_attempts", /whole number/],
    ["a quoted number", "limits: { max_items: '10' }", "limits.max_items", /expected a number, got string "10"/],
    ["a bare number as duration", "limits: { item_timeout: 30 }", "limits.item_timeout", /duration like 90s, 10m, 1h or 1h30m/],
    ["a bad duration", "limits: { mission_timeout: 1.5h }", "limits.mission_timeout", /duration like/],
    ["a permission", "limits: { min_permission: owner }", "limits.min_permission", /one of: admin, maintain, write, triage, read/],
    ["a cost", "limits: { max_cost_usd: 0 }", "limits.max_cost_usd", /greater than 0/],
    ["a preset", "agents: { x: { preset: claud } }", "agents.x.preset", /one of: claude, codex, aider, gemini/],
    ["preset and command", "agents: { x: { preset: codex, command: y } }", "agents.x", /either `preset` or `command`/],
    ["neither", "agents: { x: { timeout: 5m } }", "agents.x", /needs a `command`/],
    ["an empty command", "agents: { x: { command: '' } }", "agents.x.command", /must not be empty/],
    ["a profile name", "agents: { My Agent: { command: y } }", 'agents["My Agent"]', /a-z, 0-9/],
    ["a reserved name", "agents: { none: { command: y } }", "agents.none", /means no agent/],
    ["a GitHub token", "agents: { x: { command: y, env: [GH_TOKEN] } }", "agents.x.env[0]", /GitHub tokens never reach an agent/],
    ["the Actions runtime", "agents: { x: { command: y, env: [ACTIONS_ID_TOKEN_REQUEST_TOKEN] } }", "agents.x.env[0]", /ACTIONS_/],
    ["an Action input", "agents: { x: { command: y, env: [INPUT_GITHUB_TOKEN] } }", "agents.x.env[0]", /INPUT_/],
    ["a runner's file command", "queue: { verify: t, env: [GITHUB_STEP_SUMMARY] }", "queue.env[0]", /a file of the runner's/],
    ["a variable name", "agents: { x: { command: y, env: [MY-KEY] } }", "agents.x.env[0]", /variable name/],
    ["a variable naruto sets", "agents: { x: { command: y, env: [NARUTO_ITEM] } }", "agents.x.env[0]", /naruto sets/],
    ["an unknown planner", "planner: { agent: defualt }", "planner.agent", /did you mean "default"/],
    ["an unknown reviewer", "arbiter: { agent: codx }", "arbiter.agent", /did you mean "codex".*or none/],
    ["a path leaving the repository", "protected: [../secrets]", "protected[0]", /leaves the repository/],
    ["an absolute path", "protected: [ok/, /etc]", "protected[1]", /absolute paths are not allowed/],
    ["a bot written with @", "allow_bots: ['@renovate']", "allow_bots[0]", /no @/],
    ["a yes/no string", "approval: 'yes'", "approval", /true or false/],
    ["a sandbox mode", "sandbox: bwrap", "sandbox", /one of: auto, required, none/],
    ["something the gate cannot allow", "allow: [symlinks]", "allow[0]", /one of: submodules, gitattributes/],
    ["a size without a known unit", "limits: { max_file_size: 50 megs }", "limits.max_file_size", /size like 50MiB, 500KB or a number of bytes/],
    ["a size above 2GiB", "limits: { max_file_size: 3GiB }", "limits.max_file_size", /too large/],
    ["a size that is not a size", "limits: { max_file_size: true }", "limits.max_file_size", /size like 50MiB/],
    [
      "a network that is neither",
      "agents: { x: { command: y, network: lan } }",
      "agents.x.network",
      /expected true \(the internet without the host\), host \(the host's network\) or false/,
    ],
    [
      "a sandbox's file size the gate would let through cut",
      "limits: { max_file_size: 50MiB, agent_file_size: 50MiB }",
      "limits.agent_file_size",
      /must be more than max_file_size/,
    ],
    ["a memory size beyond any machine", "limits: { agent_memory: 2048GiB }", "limits.agent_memory", /too large: at most 1024GiB/],
    ["no processes at all", "limits: { agent_processes: 0 }", "limits.agent_processes", /.+/],
    ["a relative read path", "agents: { x: { command: y, read: [tools/] } }", "agents.x.read[0]", /absolute path or one starting with ~\//],
    ["a login for a plain command", "agents: { x: { command: y, login: true } }", "agents.x", /`login: true` .* needs `preset: claude`, `codex` or `gemini`/],
    ["a login for aider", "agents: { x: { preset: aider, login: true } }", "agents.x", /aider and plain commands take their keys from `env:`/],
    ["a token for the verify", "queue: { env: [GITHUB_TOKEN] }", "queue.env[0]", /GitHub tokens never reach an agent/],
    ["a red base compared without a report", "queue: { verify: npm test, red_base: compare }", "queue.red_base", /set verify_report too/],
    ["a report outside the repository", "queue: { verify_report: ../junit.xml }", "queue.verify_report", /inside the repository/],
    ["confirm runs out of range", "queue: { confirm_runs: 11 }", "queue.confirm_runs", /at most 10/],
    ["a version", "version: 2", "version", /must be 1/],
    ["a list for a mapping", "limits: [1]", "limits", /expected a mapping/],
    ["a misspelled key", "limits: { max_paralel: 2 }", "limits.max_paralel", /did you mean "max_parallel"/],
    ["a key at the wrong level", "max_parallel: 2", "max_parallel", /did you mean "limits.max_parallel"/],
    ["a key in a profile", "agents: { x: { command: y, tmeout: 5m } }", "agents.x.tmeout", /did you mean "timeout"/],
    ["a key nowhere", "colour: blue", "colour", /allowed keys: version, agents/],
    ["YAML syntax", "limits: [1", "(root)", /not valid YAML/],
    ["a duplicate key", "approval: true\napproval: false", "(root)", /not valid YAML: Map keys must be unique/],
    ["a top-level list", "- 1", "(root)", /expected a mapping/],
  ])("%s", (_, text, path, message) => {
    const errors = errorsOf(text);
    expect(errors).toContainEqual(expect.objectContaining({ path, message: expect.stringMatching(message) }));
  });

  it("lists every error, top to bottom with lines", () => {
    const errors = errorsOf("limits:\n  max_parallel: 0\n  max_attempts: 0\nqueue:\n  batch: x\n");
    expect(errors).toEqual([
      { path: "limits.max_parallel", message: "must be at least 1", line: 2 },
      { path: "limits.max_attempts", message: "must be at least 1", line: 3 },
      { path: "queue.batch", message: 'expected a number, got string "x"', line: 5 },
    ]);
    expect(formatConfigErrors(errors)).toBe(
      [
        ".github/naruto.yml:2: limits.max_parallel: must be at least 1",
        ".github/naruto.yml:3: limits.max_attempts: must be at least 1",
        '.github/naruto.yml:5: queue.batch: expected a number, got string "x"',
      ].join("\n"),
    );
  });
});

describe("loadConfig other fields", () => {
  it("normalizes protected paths and removes duplicates and repeated bots", () => {
    const config = configOf("protected: [./.github//workflows/, .GitHub/Workflows/, secrets/]\nallow_bots: ['renovate[bot]', 'renovate[bot]']");
    expect(config.protected.map((p) => p.path)).toEqual([".github/workflows/", "secrets/"]);
    expect(config.allow_bots).toEqual(["renovate[bot]"]);
  });

  it("reads a whole config", () => {
    const config = configOf(
      [
        "version: 1",
        "queue: { verify: npm test, batch: 4 }",
        "limits: { max_parallel: 256, max_cost_usd: 12.5, min_permission: maintain }",
        "allow_protected: true",
        "allow: [submodules, gitattributes, submodules]",
        "approval: true",
      ].join("\n"),
    );
    expect(configOf("limits: { max_file_size: 10MB }").limits.max_file_size).toBe(10_000_000);
    expect(configOf("limits: { max_file_size: 1048576 }").limits.max_file_size).toBe(1024 * 1024);
    expect(configOf("limits: { agent_processes: 256, agent_memory: 16GiB, agent_file_size: 200MiB, agent_tmp_size: 512MiB }").limits).toMatchObject({
      agent_processes: 256,
      agent_memory: 16 * 1024 ** 3,
      agent_file_size: 200 * 1024 ** 2,
      agent_tmp_size: 512 * 1024 ** 2,
    });
    expect(config.allow).toEqual(["submodules", "gitattributes"]);
    expect(config.queue).toEqual({
      verify: "npm test",
      batch: 4,
      env: [],
      verify_report: null,
      red_base: "stop",
      confirm_runs: 1,
      max_flips: 10,
      refresh: "manual",
    });
    expect(config.limits).toMatchObject({ max_parallel: 256, max_cost_usd: 12.5, min_permission: "maintain" });
    expect(config).toMatchObject({ allow_protected: true, approval: true });
  });
});

describe("loadConfig schedules", () => {
  it("reads schedules with their cron, task or plan file, and approval defaulting to the top level", () => {
    const config = configOf(`approval: true
schedules:
  - name: nightly-docs
    cron: "0 3 * * *"
    task: Refresh the API docs
  - name: weekly-deps
    cron: "30 6 * * 1"
    plan: ./.github/naruto/deps.yml
    approval: false
`);
    expect(config.schedules.map((s) => ({ name: s.name, cron: s.cron.text, task: s.task, plan: s.plan, approval: s.approval }))).toEqual([
      { name: "nightly-docs", cron: "0 3 * * *", task: "Refresh the API docs", plan: null, approval: true },
      { name: "weekly-deps", cron: "30 6 * * 1", task: null, plan: ".github/naruto/deps.yml", approval: false },
    ]);
    expect(configOf(null).schedules).toEqual([]);
  });

  it("names the schedule field that is wrong and why", () => {
    const errors = errorsOf(`schedules:
  - name: a
    cron: "0 25 * * *"
    task: x
  - name: a
    cron: "0 3 * * *"
  - name: b
    cron: "0 3 * * *"
    plan: docs/
  - name: c
    cron: "0 3 * * *"
    task: x
    when: later
`);
    const byPath = Object.fromEntries(errors.map((e) => [e.path, e.message]));
    expect(byPath["schedules[0].cron"]).toContain("hour: 25 is outside 0-23");
    expect(byPath["schedules[1]"]).toContain("needs a `task`");
    expect(Object.keys(byPath).some((p) => p.startsWith("schedules[3]"))).toBe(true);
  });

  it("refuses two schedules of one name and a plan that is a folder", () => {
    const errors = errorsOf(`schedules:
  - { name: a, cron: "0 3 * * *", task: x }
  - { name: a, cron: "0 4 * * *", task: y }
  - { name: b, cron: "0 4 * * *", plan: docs/ }
`);
    expect(errors.map((e) => e.path)).toEqual(["schedules[1].name", "schedules[2].plan"]);
  });
});
