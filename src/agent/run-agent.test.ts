import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeAgentCommand } from "../../test/support/agents/index.ts";
import { isAlive, waitForFile, waitUntilGone } from "../../test/support/agents/processes.ts";
import { runAgent, type AgentRun, type RunAgentOptions } from "./run-agent.ts";
import { shellQuote } from "./shell-quote.ts";

const NODE = shellQuote(process.execPath);

// The runner's environment as a CI job would have it: basics, keys, and tokens that must not leak.
const RUNNER_ENV = {
  PATH: process.env.PATH,
  HOME: "/home/runner",
  LANG: "C.UTF-8",
  ANTHROPIC_API_KEY: "sk-ant-test",
  SOME_SECRET: "not allowlisted",
  GITHUB_TOKEN: "ghs_secret",
  GH_TOKEN: "ghp_secret",
  ACTIONS_RUNTIME_TOKEN: "runtime",
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: "oidc",
  NARUTO_ITEM: "stale value from the runner",
};

let dir: string;
let work: string;
let promptFile: string;
let resultFile: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "naruto-agent-"));
  work = join(dir, "work");
  await mkdir(work);
  promptFile = join(dir, "attempt", "prompt.md");
  resultFile = join(dir, "attempt", "result.json");
  await mkdir(join(dir, "attempt"));
  await writeFile(promptFile, "# the prompt\nDo the thing.\n");
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(command: string, options: Partial<RunAgentOptions> = {}): Promise<AgentRun> {
  return runAgent({
    command,
    cwd: work,
    env: RUNNER_ENV,
    allowEnv: [],
    mission: "m-test",
    item: "users-api",
    attempt: 1,
    writes: ["src/api/users.ts", { path: "test/api/users/" }],
    promptFile,
    resultFile,
    timeoutMs: 60_000,
    killGraceMs: 300,
    ...options,
  });
}

describe("runAgent environment", () => {
  it("passes basics, allowlisted names and NARUTO_* only — never GitHub or Actions tokens", async () => {
    const agent = await run(`${NODE} -e 'console.log(JSON.stringify(process.env))'`, {
      allowEnv: ["ANTHROPIC_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN", "NOT_SET"],
    });
    expect(agent.outcome).toBe("exited");
    const env: unknown = JSON.parse(agent.output);
    expect(env).toMatchObject({
      HOME: "/home/runner",
      LANG: "C.UTF-8",
      ANTHROPIC_API_KEY: "sk-ant-test",
      NARUTO_PROMPT_FILE: promptFile,
      NARUTO_RESULT_FILE: resultFile,
      NARUTO_MISSION: "m-test",
      NARUTO_ITEM: "users-api",
      NARUTO_ATTEMPT: "1",
      NARUTO_WRITES: "src/api/users.ts\ntest/api/users/",
      NARUTO_AGENT_RUN: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    const names = Object.keys(env as Record<string, string>);
    for (const name of ["GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "SOME_SECRET", "NOT_SET"]) {
      expect(names).not.toContain(name);
    }
    expect(JSON.stringify(env)).not.toMatch(/ghs_secret|ghp_secret|runtime|oidc/);
    expect(agent.notes).toEqual([
      "GITHUB_TOKEN was not passed to the agent: GitHub tokens never reach an agent",
      "GH_TOKEN was not passed to the agent: GitHub tokens never reach an agent",
      expect.stringMatching(/^ACTIONS_RUNTIME_TOKEN was not passed/),
    ]);
  });

  it("runs in the work tree with the prompt file named and stdin closed", async () => {
    const agent = await run(`pwd; cat "$NARUTO_PROMPT_FILE"; cat; echo "stdin done"`);
    expect(agent.outcome).toBe("exited");
    expect(agent.output).toBe(`${await realpath(work)}\n# the prompt\nDo the thing.\nstdin done\n`);
  });
});

describe("runAgent outcomes", () => {
  it("reports a crash with its exit code and both output streams", async () => {
    const agent = await run(fakeAgentCommand("crash"));
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: 3, signal: null, timedOut: false });
    expect(agent.output).toContain("crash: starting work");
    expect(agent.output).toContain("crash: something went wrong");
  });

  it("reports death by a signal as a crash", async () => {
    const agent = await run("kill -KILL $$");
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: null, signal: "SIGKILL" });
  });

  it("reports an agent that cannot start as a crash with a note", async () => {
    const agent = await run("true", { cwd: join(dir, "missing") });
    expect(agent.outcome).toBe("crashed");
    expect(agent.notes).toEqual([expect.stringContaining("could not be started")]);
  });

  it("times out and kills the whole process tree, including a grandchild that ignores SIGTERM", async () => {
    const pidFile = join(dir, "grandchild.pid");
    const agent = await run(fakeAgentCommand("hang"), {
      timeoutMs: 5_000,
      env: { ...RUNNER_ENV, NARUTO_FAKE_PID_FILE: pidFile },
      allowEnv: ["NARUTO_FAKE_PID_FILE"],
    });
    expect(agent).toMatchObject({ outcome: "timed_out", timedOut: true });
    expect(agent.output).toContain("grandchild ready");
    const pid = Number(await readFile(pidFile, "utf8"));
    expect(await waitUntilGone(pid)).toBe(true);
  });

  it("stops on cancel the same way", async () => {
    const pidFile = join(dir, "grandchild.pid");
    const cancel = new AbortController();
    const running = run(fakeAgentCommand("hang"), {
      env: { ...RUNNER_ENV, NARUTO_FAKE_PID_FILE: pidFile },
      allowEnv: ["NARUTO_FAKE_PID_FILE"],
      signal: cancel.signal,
    });
    const pid = Number(await waitForFile(pidFile));
    expect(await isAlive(pid)).toBe(true);
    cancel.abort();
    const agent = await running;
    expect(agent).toMatchObject({ outcome: "cancelled", timedOut: false });
    expect(await waitUntilGone(pid)).toBe(true);
  });

  it("kills what the agent left running in the background when it exits", async () => {
    const agent = await run(`(trap '' TERM; exec sleep 1000) >/dev/null 2>&1 & echo $!`);
    expect(agent.outcome).toBe("exited");
    expect(await waitUntilGone(Number(agent.output.trim()))).toBe(true);
  });

  it("kills a process the agent moved out of its process group with setsid, and says so", async () => {
    const pidFile = join(dir, "escaped.pid");
    // The escaped process runs in its own session: the group kill cannot reach it.
    const agent = await run(`setsid sh -c 'echo $$ > ${shellQuote(pidFile)}; exec sleep 1000' >/dev/null 2>&1 < /dev/null & sleep 0.3`);
    expect(agent.outcome).toBe("exited");
    const pid = Number((await waitForFile(pidFile))?.trim());
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntilGone(pid)).toBe(true);
    expect(agent.notes).toContain("killed 1 process(es) the agent left running outside its process group");
  });

  it("bounds the output, keeping its start and end", async () => {
    const agent = await run(`${NODE} -e 'process.stdout.write("START" + "x".repeat(100000)); process.stderr.write("END")'`, {
      outputLimitBytes: 1000,
    });
    expect(agent).toMatchObject({ outcome: "exited", outputBytes: 100_008, outputTruncated: true });
    expect(agent.output).toMatch(/^STARTx+\n\[naruto: 99008 bytes of output cut\]\nx+END$/);
  });

  it("streams every chunk to onOutput", async () => {
    const chunks: Buffer[] = [];
    await run("echo one; echo two >&2", { onOutput: (chunk) => chunks.push(chunk) });
    expect(Buffer.concat(chunks).toString()).toMatch(/one\n[\s\S]*two\n|two\n[\s\S]*one\n/);
  });
});

describe("runAgent result file", () => {
  it("reads the agent's JSON result", async () => {
    const agent = await run(fakeAgentCommand("edit"));
    expect(agent.outcome).toBe("exited");
    expect(agent.result).toEqual({
      summary: "edit: changed src/api/users.ts",
      cost_usd: 0.01,
      tokens_in: 100,
      tokens_out: 20,
      model: "fake",
    });
    expect(await readFile(join(work, "src/api/users.ts"), "utf8")).toBe("edited by users-api (attempt 1)\n");
  });

  it("records invalid JSON as a note, not a crash", async () => {
    const agent = await run(`echo '{nope' > "$NARUTO_RESULT_FILE"`);
    expect(agent.outcome).toBe("exited");
    expect(agent.result).toBeNull();
    expect(agent.notes).toEqual([expect.stringContaining("not valid JSON")]);
  });

  it("never reads a result left by an earlier attempt", async () => {
    await writeFile(resultFile, JSON.stringify({ summary: "stale" }));
    const agent = await run("true");
    expect(agent.result).toBeNull();
  });
});
