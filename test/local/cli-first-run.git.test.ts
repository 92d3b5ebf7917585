/**
 * The first real run on a laptop (issue #35), as a newcomer meets it: the real `bin/naruto.js`
 * as a process, in scratch repositories, with their own agent script, a CLI with no key, an
 * agent that fails. What the terminal says must be enough to know what went wrong and what to do.
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../support/git-repo.ts";
import { BARE_PATH, expectRefused, naruto, refs } from "./naruto-process.ts";

const PLAN = "version: 1\ntitle: t\nitems:\n  - { id: a, title: A, writes: [a.txt] }\n  - { id: b, title: B, writes: [b.txt], after: [a] }\n";

interface ResultJson {
  readonly mission: string;
  readonly status: string;
  readonly items: readonly { id: string; status: string; attempts: number; reason: string | null }[];
}

function resultOf(stdout: string): ResultJson {
  return JSON.parse(stdout) as ResultJson;
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function scratch(name = "naruto-first-run-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), name));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function repo(files: Record<string, string> = { "README.md": "# app\n" }): Promise<TestRepo> {
  const r = await createTestRepo(files);
  cleanup.push(() => r.remove());
  return r;
}

describe("what naruto's own words promise is what it does", () => {
  it("`naruto plan --help` names exactly the keys `naruto plan --json` prints", async () => {
    const r = await repo();
    await writeFile(join(r.dir, ".git", "plan.yml"), "version: 1\ntitle: t\nitems:\n  - { id: a, title: A, writes: [a.txt] }\n");
    const help = await naruto(r.dir, ["plan", "--help"]);
    const listed = /print one JSON object \(([^)]*)\)/.exec(help.stdout.replace(/\s+/g, " "))?.[1]?.split(", ") ?? [];
    const json = JSON.parse((await naruto(r.dir, ["plan", ".git/plan.yml", "--json"])).stdout) as Record<string, unknown>;
    expect(listed.sort()).toEqual(Object.keys(json).sort());
  });

  it("`naruto demo` says where its repository is kept, and `--no-keep` removes it", async () => {
    const temp = await scratch("naruto-demo-parent-");
    expect((await naruto(temp, ["demo", "--help"])).stdout).toContain("--no-keep");
    const demo = await naruto(temp, ["demo", "--no-keep"], { TMPDIR: temp });
    expect(demo.code, demo.stderr + demo.stdout).toBe(0);
    const made = /on a copy of examples\/demo\/project in (\S+)/.exec(demo.stdout)?.[1] ?? "";
    expect(made.startsWith(temp)).toBe(true);
    expect(demo.stdout).toContain(`repository: ${made} removed (--no-keep)`);
    expect(await readdir(temp)).toEqual([]);
  });
});

describe("a failure that will fail the same way again is not retried", () => {
  it("a command not found inside the sandbox: one attempt, the item failed with what to do, its dependent skipped", async () => {
    const r = await repo();
    await writeFile(join(r.dir, ".git", "plan.yml"), PLAN);
    const run = await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--agent", "sh -c 'naruto-no-such-tool --go'", "--json"]);
    expect(run.code, run.stderr).toBe(1);
    const [a, b] = resultOf(run.stdout).items;
    expect(a).toMatchObject({ id: "a", status: "failed", attempts: 1 });
    expect(a?.reason).toMatch(/exited with code 127: a command the agent runs was not found( inside the sandbox)?\. naruto does not retry it/);
    expect(a?.reason).toContain("--read PATH");
    expect(b).toMatchObject({ id: "b", status: "skipped", attempts: 0 });
  });

  it("an agent whose credentials were refused: one attempt, the reason says so", async () => {
    const r = await repo();
    await writeFile(join(r.dir, ".git", "plan.yml"), PLAN);
    const agent = `printf '{"failure":{"kind":"authentication","message":"Not logged in"}}' > "$NARUTO_RESULT_FILE"; echo 'Not logged in' >&2; exit 1`;
    const run = await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--agent", agent, "--sandbox", "none", "--json"]);
    expect(run.code, run.stderr).toBe(1);
    const [a] = resultOf(run.stdout).items;
    expect(a).toMatchObject({ id: "a", status: "failed", attempts: 1 });
    expect(a?.reason).toContain("its CLI refused its credentials (Not logged in). naruto does not retry it");
  });

  it("a planner whose command is not found is run once, not twice", async () => {
    const r = await repo();
    const run = await naruto(r.dir, ["run", "--task", "add a.txt", "--agent", "sh -c 'naruto-no-such-tool --plan'", "--json"]);
    expect(run.code, run.stderr).toBe(1);
    const result = resultOf(run.stdout);
    expect(result.status).toBe("failed");
    const planner = join(r.dir, ".git", "naruto", "missions", result.mission, "planner");
    await stat(join(planner, "prompt-1.md"));
    await expect(stat(join(planner, "prompt-2.md"))).rejects.toThrow(/ENOENT/);
  });
});

describe("a failing agent's last words are on the terminal", () => {
  it("under the attempt's line, and in --json's reason, redacted", async () => {
    const r = await repo();
    await writeFile(join(r.dir, ".git", "plan.yml"), "version: 1\ntitle: t\nitems:\n  - { id: a, title: A, writes: [a.txt] }\n");
    const agent = `echo 'starting'; echo "token ghp_${"Ab3".repeat(12)} leaked" >&2; echo 'Error: the model endpoint said 529 overloaded' >&2; exit 3`;
    const human = await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--agent", agent, "--sandbox", "none"]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(
      /a: attempt 1 failed: exited with code 3\n {8}│ starting\n {8}│ token \[redacted\] leaked\n {8}│ Error: the model endpoint said 529 overloaded\n/,
    );
    expect(human.stdout + human.stderr).not.toContain("ghp_");
    const json = await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--agent", agent, "--sandbox", "none", "--json"]);
    const [a] = resultOf(json.stdout).items;
    // The §13 result keeps its keys: the words are in the reason.
    expect(a?.reason).toContain("Error: the model endpoint said 529 overloaded");
    expect(a?.reason).toContain("token [redacted] leaked");
    expect(json.stdout).not.toContain("ghp_");
    expect(json.stderr).toContain("│ Error: the model endpoint said 529 overloaded");
  });
});

describe("an --agent command that names a file of this machine", () => {
  const ONE = "version: 1\ntitle: t\nitems:\n  - { id: a, title: A, writes: [a.txt] }\n";

  /** A folder outside the repository with an executable agent script in it. */
  async function agentFolder(script = "#!/bin/sh\nprintf 'from my agent\\n' > a.txt\n"): Promise<string> {
    const dir = await scratch("naruto-my-agent-");
    await writeFile(join(dir, "my-agent.sh"), script);
    await chmod(join(dir, "my-agent.sh"), 0o755);
    return dir;
  }

  async function integrated(r: TestRepo, args: string[]): Promise<ResultJson> {
    const run = await naruto(r.dir, ["run", "--plan", ".git/plan.yml", ...args, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const result = resultOf(run.stdout);
    expect(result.items[0]).toMatchObject({ status: "integrated", attempts: 1 });
    expect(await r.run("show", `naruto/${result.mission}:a.txt`)).toBe("from my agent");
    return result;
  }

  it("a script in a temporary folder, by its absolute path, with no --read: shown to the sandbox, integrated", async () => {
    const [r, dir] = await Promise.all([repo(), agentFolder()]);
    await writeFile(join(r.dir, ".git", "plan.yml"), ONE);
    await integrated(r, ["--agent", join(dir, "my-agent.sh")]);
  });

  it("the same script by a path relative to where naruto runs, or given to sh", async () => {
    const [r, dir] = await Promise.all([repo(), agentFolder()]);
    await writeFile(join(r.dir, ".git", "plan.yml"), ONE);
    await integrated(r, ["--agent", `${relative(r.dir, join(dir, "my-agent.sh"))} --fast`]);
    await integrated(r, ["--agent", `sh ${join(dir, "my-agent.sh")}`]);
  });

  it("a script that runs another of its folder: not found inside the sandbox, with the --read that shows it; with it, integrated", async () => {
    const dir = await agentFolder(`#!/bin/sh\n"$(dirname "$0")/helper.sh"\n`);
    await writeFile(join(dir, "helper.sh"), "#!/bin/sh\nprintf 'from my agent\\n' > a.txt\n");
    await chmod(join(dir, "helper.sh"), 0o755);
    const r = await repo();
    await writeFile(join(r.dir, ".git", "plan.yml"), ONE);
    const alone = await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--agent", join(dir, "my-agent.sh"), "--json"]);
    const [a] = resultOf(alone.stdout).items;
    if (!alone.stdout.includes('"sandbox": "none')) {
      expect(a).toMatchObject({ status: "failed", attempts: 1 });
      expect(a?.reason).toContain("not found inside the sandbox");
      expect(a?.reason).toContain("--read PATH");
    }
    if (process.getuid?.() === 0 && !alone.stdout.includes('"sandbox": "none')) {
      // As root, agents run as a user of their own: a folder only its owner may enter is refused, with the fix.
      expectRefused(
        await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--agent", join(dir, "my-agent.sh"), "--read", dir]),
        `Let others read it (\`chmod o+rX ${dir}\`)`,
      );
      await chmod(dir, 0o755);
    }
    await integrated(r, ["--agent", join(dir, "my-agent.sh"), "--read", dir]);
  });

  it("a script in the repository that the commit does not hold: refused before anything is made, saying to commit it", async () => {
    const r = await repo();
    await writeFile(join(r.dir, ".git", "plan.yml"), ONE);
    await writeFile(join(r.dir, "my-agent.sh"), "#!/bin/sh\nprintf x > a.txt\n");
    await chmod(join(r.dir, "my-agent.sh"), 0o755);
    expectRefused(
      await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--agent", "./my-agent.sh"]),
      "is in your work tree but not in the commit the mission starts from",
      "Commit my-agent.sh first",
    );
    expectRefused(await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--agent", "./no-such-agent.sh"]), "is not in the commit the mission starts from");
    expect(await refs(r.dir)).toBe("refs/heads/main");
  });

  it("a --read path or a read: path that is not here: refused before anything is made", async () => {
    const r = await repo({
      "README.md": "# app\n",
      ".github/naruto.yml": 'version: 1\nagents:\n  default: { command: "printf x > a.txt", read: [/nonexistent/naruto-tools] }\n',
    });
    await writeFile(join(r.dir, ".git", "plan.yml"), ONE);
    const dir = await agentFolder();
    expectRefused(
      await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--agent", join(dir, "my-agent.sh"), "--read", "/nonexistent/naruto-read"]),
      "--read /nonexistent/naruto-read: no such file or folder here",
    );
    expectRefused(
      await naruto(r.dir, ["run", "--plan", ".git/plan.yml"]),
      "the default agent reads /nonexistent/naruto-tools (--read, or read: in .github/naruto.yml), which is not here",
    );
    expect(await refs(r.dir)).toBe("refs/heads/main");
  });
});

/**
 * Stand-ins for the agent CLIs, in a folder put first on PATH: each answers its CLI's offline
 * probe as the real one does (exit 1 without credentials), and as an agent writes a.txt saying
 * which login file its private HOME holds, and whether it carries a refresh token.
 */
async function credentialStandIns(): Promise<string> {
  const bin = await scratch("naruto-cli-stand-ins-");
  const scripts: Record<string, string> = {
    claude: `#!/bin/sh
if [ "$1" = auth ]; then [ -f "$HOME/.claude/.credentials.json" ] || [ -n "$ANTHROPIC_API_KEY$CLAUDE_CODE_OAUTH_TOKEN" ]; exit $?; fi
cat > /dev/null
if [ -f "$HOME/.claude/.credentials.json" ]; then
if grep -q refreshToken "$HOME/.claude/.credentials.json"; then echo "a refresh token" > a.txt; else echo "an access token alone" > a.txt; fi
else echo "a key" > a.txt; fi
echo '{"type":"result","is_error":false,"subtype":"success","result":"ok","usage":{},"modelUsage":{},"permission_denials":[]}'
`,
    codex: `#!/bin/sh
if [ "$1" = login ]; then [ -f "\${CODEX_HOME:-$HOME/.codex}/auth.json" ]; exit $?; fi
cat > /dev/null
if grep -q '"refresh_token":""' "$HOME/.codex/auth.json" 2>/dev/null; then echo "an access token alone" > a.txt; else echo "not that" > a.txt; fi
`,
    gemini: '#!/bin/sh\ncat > /dev/null\necho \'{"response":"ok","stats":{"models":{}}}\'\n',
    aider: "#!/bin/sh\nexit 0\n",
  };
  for (const [name, text] of Object.entries(scripts)) {
    await writeFile(join(bin, name), text);
    await chmod(join(bin, name), 0o755);
  }
  return bin;
}

describe("credentials are checked before the mission starts", () => {
  const ONE = "version: 1\ntitle: t\nitems:\n  - { id: a, title: A, writes: [a.txt] }\n";

  async function presetRepo(preset: string): Promise<TestRepo> {
    const r = await repo({ "README.md": "# app\n", ".github/naruto.yml": `version: 1\nagents:\n  default: { preset: ${preset} }\n` });
    await writeFile(join(r.dir, ".git", "plan.yml"), ONE);
    return r;
  }

  it.each([
    ["claude", ["ANTHROPIC_API_KEY", "claude setup-token", "CLAUDE_CODE_OAUTH_TOKEN", "naruto run --login", "`claude auth status` finds no login"]],
    ["codex", ["CODEX_API_KEY", "codex login --with-api-key", "codex login", "`codex login status` finds no login"]],
    ["gemini", ["GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "Login with Google"]],
    ["aider", ["ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"]],
  ])("%s with no key: refused before any mission or branch is made, naming the commands that fix it", async (preset, named) => {
    const [r, bin] = await Promise.all([presetRepo(preset), credentialStandIns()]);
    for (const args of [
      ["run", "--plan", ".git/plan.yml"],
      ["run", "--task", "add a.txt"],
    ]) {
      expectRefused(await naruto(r.dir, args, { PATH: `${bin}:${BARE_PATH}` }), "has no credentials", ...named);
    }
    expect(await refs(r.dir)).toBe("refs/heads/main");
    await expect(stat(join(r.dir, ".git", "naruto", "missions"))).rejects.toThrow(/ENOENT/);
  });

  it("codex with OPENAI_API_KEY only: refused, saying that codex exec reads CODEX_API_KEY", async () => {
    const [r, bin] = await Promise.all([presetRepo("codex"), credentialStandIns()]);
    expectRefused(
      await naruto(r.dir, ["run", "--plan", ".git/plan.yml"], { PATH: `${bin}:${BARE_PATH}`, OPENAI_API_KEY: "sk-naruto-test-key-000" }),
      'export CODEX_API_KEY="$OPENAI_API_KEY"',
    );
  });

  it("claude with a key: not refused, and the agent runs with it; a vendor variable it does not pass is named once, with the env: that passes it", async () => {
    const [r, bin] = await Promise.all([presetRepo("claude"), credentialStandIns()]);
    const run = await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--json"], {
      PATH: `${bin}:${BARE_PATH}`,
      ANTHROPIC_API_KEY: "sk-ant-naruto-test-0000",
      ANTHROPIC_OTHER_BASE_URL: "https://gw.example",
      ANTHROPIC_BASE_URL: "https://gw.example",
    });
    expect(run.code, run.stderr).toBe(0);
    expect(await r.run("show", `naruto/${resultOf(run.stdout).mission}:a.txt`)).toBe("a key");
    const named =
      "ANTHROPIC_OTHER_BASE_URL is set here, but the default agent (Claude Code) does not get it: pass it with env: in .github/naruto.yml — agents: { default: { preset: claude, env: [ANTHROPIC_OTHER_BASE_URL] } }";
    expect(run.stderr.split(named).length).toBe(2);
    expect(run.stderr).not.toContain("ANTHROPIC_BASE_URL is set here");
  });
});

describe("a logged-in CLI, opt-in (--login)", () => {
  const ONE = "version: 1\ntitle: t\nitems:\n  - { id: a, title: A, writes: [a.txt] }\n";

  it("claude: the agent gets a copy of the login without its refresh token; the user's login file is untouched", async () => {
    const r = await repo({ "README.md": "# app\n", ".github/naruto.yml": "version: 1\nagents:\n  default: { preset: claude }\n" });
    await writeFile(join(r.dir, ".git", "plan.yml"), ONE);
    const bin = await credentialStandIns();
    const home = await scratch("naruto-user-home-");
    await mkdir(join(home, ".claude"));
    const login = JSON.stringify({
      claudeAiOauth: {
        accessToken: "sk-ant-oat01-naruto-test-access",
        refreshToken: "sk-ant-ort01-naruto-test-refresh",
        expiresAt: Date.now() + 4 * 3600_000,
        scopes: ["user:inference"],
        subscriptionType: "max",
      },
    });
    await writeFile(join(home, ".claude", ".credentials.json"), login);
    const env = { PATH: `${bin}:${BARE_PATH}`, HOME: home };
    expectRefused(await naruto(r.dir, ["run", "--plan", ".git/plan.yml"], env), "has no credentials", "naruto run --login");
    const run = await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--login", "--json"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(await r.run("show", `naruto/${resultOf(run.stdout).mission}:a.txt`)).toBe("an access token alone");
    expect(await readFile(join(home, ".claude", ".credentials.json"), "utf8")).toBe(login);
  });

  it("claude: an access token that would expire before an attempt could end is refused, with what to do", async () => {
    const r = await repo({ "README.md": "# app\n", ".github/naruto.yml": "version: 1\nagents:\n  default: { preset: claude, login: true }\n" });
    await writeFile(join(r.dir, ".git", "plan.yml"), ONE);
    const bin = await credentialStandIns();
    const home = await scratch("naruto-user-home-");
    await mkdir(join(home, ".claude"));
    await writeFile(
      join(home, ".claude", ".credentials.json"),
      JSON.stringify({ claudeAiOauth: { accessToken: "sk-ant-oat01-x", refreshToken: "sk-ant-ort01-y", expiresAt: Date.now() + 10 * 60_000 } }),
    );
    expectRefused(
      await naruto(r.dir, ["run", "--plan", ".git/plan.yml"], { PATH: `${bin}:${BARE_PATH}`, HOME: home }),
      "before an attempt could end",
      "never gives an agent the refresh token",
      "claude setup-token",
    );
    expect(await refs(r.dir)).toBe("refs/heads/main");
  });

  it("codex: a ChatGPT login's copy has no refresh token", async () => {
    const r = await repo({ "README.md": "# app\n", ".github/naruto.yml": "version: 1\nagents:\n  default: { preset: codex }\n" });
    await writeFile(join(r.dir, ".git", "plan.yml"), ONE);
    const bin = await credentialStandIns();
    const home = await scratch("naruto-user-home-");
    await mkdir(join(home, ".codex"));
    const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.sig`;
    const login = JSON.stringify({
      auth_mode: "chatgpt",
      tokens: {
        id_token: jwt({ email: "u@example.com" }),
        access_token: jwt({ exp: Math.floor(Date.now() / 1000) + 3 * 86400 }),
        refresh_token: "naruto-test-refresh",
        account_id: "acct",
      },
      last_refresh: new Date().toISOString(),
    });
    await writeFile(join(home, ".codex", "auth.json"), login);
    const run = await naruto(r.dir, ["run", "--plan", ".git/plan.yml", "--login", "--json"], { PATH: `${bin}:${BARE_PATH}`, HOME: home });
    expect(run.code, run.stderr).toBe(0);
    expect(await r.run("show", `naruto/${resultOf(run.stdout).mission}:a.txt`)).toBe("an access token alone");
    expect(await readFile(join(home, ".codex", "auth.json"), "utf8")).toBe(login);
  });
});
