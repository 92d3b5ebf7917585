/**
 * runAgent (run-agent.ts): the agent's environment, its prompt and result files, and how it
 * ended. How the process itself is contained is the sandbox's, tested in src/sandbox/.
 */
import { readFile, realpath, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fakeAgentCommand, fakeAgentPath } from "../../test/support/agents/index.ts";
import { bareWorkDir, sandboxesHere } from "../../test/support/sandbox.ts";
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

let dirs: Awaited<ReturnType<typeof bareWorkDir>>[] = [];
afterEach(async () => {
  await Promise.all(dirs.map((d) => d.remove()));
  dirs = [];
});

for (const [name, sandbox] of await sandboxesHere()) {
  describe(`runAgent (${name} sandbox)`, () => {
    async function run(command: string, options: Partial<RunAgentOptions> = {}): Promise<AgentRun & { dir: Awaited<ReturnType<typeof bareWorkDir>> }> {
      const dir = options.workDir ? (options.workDir as Awaited<ReturnType<typeof bareWorkDir>>) : await bareWorkDir();
      if (!options.workDir) dirs.push(dir);
      const result = await runAgent({
        command,
        sandbox,
        workDir: dir,
        prompt: "# the prompt\nDo the thing.\n",
        env: RUNNER_ENV,
        allowEnv: [],
        network: true,
        readOnly: [dirname(fakeAgentPath("edit"))],
        mission: "m-test",
        item: "users-api",
        attempt: 1,
        writes: ["src/api/users.ts", { path: "test/api/users/" }],
        timeoutMs: 60_000,
        killGraceMs: 300,
        ...options,
      });
      return { ...result, dir };
    }

    it("passes basics, allowlisted names and NARUTO_* only — never GitHub or Actions tokens", async () => {
      // Into a file of its work directory: what it prints is redacted (the next test).
      const agent = await run(`${NODE} -e 'require("fs").writeFileSync("env.json", JSON.stringify(process.env))'`, {
        allowEnv: ["ANTHROPIC_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN", "NOT_SET"],
      });
      expect(agent.outcome).toBe("exited");
      const env = JSON.parse(await readFile(join(agent.dir.path, "env.json"), "utf8")) as Record<string, string>;
      expect(env).toMatchObject({
        HOME: agent.dir.home,
        LANG: "C.UTF-8",
        ANTHROPIC_API_KEY: "sk-ant-test",
        NARUTO_PROMPT_FILE: agent.files?.prompt,
        NARUTO_RESULT_FILE: agent.files?.outputs.result,
        NARUTO_MISSION: "m-test",
        NARUTO_ITEM: "users-api",
        NARUTO_ATTEMPT: "1",
        NARUTO_WRITES: "src/api/users.ts\ntest/api/users/",
      });
      for (const secret of ["GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "SOME_SECRET", "NOT_SET"])
        expect(Object.keys(env)).not.toContain(secret);
      expect(JSON.stringify(env)).not.toMatch(/ghs_secret|ghp_secret|runtime|oidc/);
      expect(agent.notes).toEqual([
        "GITHUB_TOKEN was not passed to the agent: GitHub tokens never reach an agent",
        "GH_TOKEN was not passed to the agent: GitHub tokens never reach an agent",
        expect.stringMatching(/^ACTIONS_RUNTIME_TOKEN was not passed/),
      ]);
    });

    it("redacts what the agent prints of its environment: its output, streamed and whole, and its result file", async () => {
      const streamed: string[] = [];
      const script = [
        "const e = process.env;",
        "process.stdout.write(`key ${e.ANTHROPIC_API_KEY.slice(0, 5)}`);",
        "setTimeout(() => {",
        "  console.log(`${e.ANTHROPIC_API_KEY.slice(5)} and ${e.SOME_SECRET_VALUE}`);",
        "  require('fs').writeFileSync(e.NARUTO_RESULT_FILE, JSON.stringify({ summary: `used ${e.SOME_SECRET_VALUE}`, model: e.ANTHROPIC_API_KEY }));",
        "}, 100);",
      ].join("\n");
      const agent = await run(`${NODE} -e ${shellQuote(script)}`, {
        env: { ...RUNNER_ENV, ANTHROPIC_API_KEY: "sk-ant-a-longer-test-key", SOME_SECRET_VALUE: "plain-looking-value" },
        allowEnv: ["ANTHROPIC_API_KEY", "SOME_SECRET_VALUE"],
        onOutput: (chunk) => void streamed.push(chunk.toString("utf8")),
      });
      expect(agent.outcome).toBe("exited");
      expect(agent.output).toBe("key [redacted] and [redacted]\n");
      expect(streamed.join("")).toBe("key [redacted] and [redacted]\n");
      expect(agent.result).toMatchObject({ summary: "used [redacted]", model: "[redacted]" });
      expect(agent.resultText).toBe(JSON.stringify({ summary: "used [redacted]", model: "[redacted]" }));
    });

    it("runs in the work directory with the prompt in a file outside it and stdin closed", async () => {
      const agent = await run(`pwd; cat "$NARUTO_PROMPT_FILE"; cat; echo "stdin done"`);
      expect(agent.outcome).toBe("exited");
      expect(agent.output).toBe(`${await realpath(agent.dir.path)}\n# the prompt\nDo the thing.\nstdin done\n`);
    });

    it("reports a crash with its exit code and both output streams, and a timeout", async () => {
      const crashed = await run(fakeAgentCommand("crash"));
      expect(crashed).toMatchObject({ outcome: "crashed", exitCode: 3, timedOut: false });
      expect(crashed.output).toContain("crash: starting work");
      expect(crashed.output).toContain("crash: something went wrong");
      expect(await run("sleep 30", { timeoutMs: 300 })).toMatchObject({ outcome: "timed_out", timedOut: true });
    });

    it("reads the agent's JSON result, and keeps its text for the records", async () => {
      const agent = await run(fakeAgentCommand("edit"));
      expect(agent.outcome).toBe("exited");
      expect(agent.result).toEqual({ summary: "edit: changed src/api/users.ts", cost_usd: 0.01, tokens_in: 100, tokens_out: 20, model: "fake", failure: null });
      expect(JSON.parse(agent.resultText ?? "")).toMatchObject({ summary: "edit: changed src/api/users.ts" });
      expect(await readFile(join(agent.dir.path, "src/api/users.ts"), "utf8")).toBe("edited by users-api (attempt 1)\n");
    });

    it("records invalid JSON as a note, not a crash", async () => {
      const agent = await run(`echo '{nope' > "$NARUTO_RESULT_FILE"`);
      expect(agent.outcome).toBe("exited");
      expect(agent.result).toBeNull();
      expect(agent.notes).toEqual([expect.stringContaining("not valid JSON")]);
    });

    it("never follows a result file that is a symlink (to a file of the user's, say), nor blocks on a pipe", async () => {
      // In the sandbox the result file cannot be replaced (it is bound on its own); without it, it can.
      const linked = await run(`ln -sf /etc/passwd "$NARUTO_RESULT_FILE" 2>/dev/null; true`);
      expect(linked.result).toBeNull();
      expect(linked.resultText).toBeNull();
      if (name === "none") expect(linked.notes).toContain("the result file is a symlink; ignored");
      else expect(linked.notes).toEqual([]);
      const piped = await run(`rm -f "$NARUTO_RESULT_FILE" 2>/dev/null && mkfifo "$NARUTO_RESULT_FILE"; true`);
      expect(piped.result).toBeNull();
      if (name === "none") expect(piped.notes).toContain("the result file is not a regular file; ignored");
    });

    it("never reads a result left by an earlier run: each run gets files of its own", async () => {
      const dir = await bareWorkDir();
      dirs.push(dir);
      const first = await run(`echo '{"summary":"stale"}' > "$NARUTO_RESULT_FILE"`, { workDir: dir });
      expect(first.result?.summary).toBe("stale");
      const agent = await run("true", { workDir: dir });
      expect(agent.files?.outputs.result).not.toBe(first.files?.outputs.result);
      expect(agent.result).toBeNull();
      expect(agent.notes).toEqual([]);
    });

    it("writes its prompt into a file of its own, never through what an agent left in io/", async () => {
      const dir = await bareWorkDir();
      dirs.push(dir);
      const target = join(dir.root, "target");
      await writeFile(target, "the user's\n");
      // What an earlier run (without the sandbox, or before this fix) left: a link, a pipe, a folder.
      const first = await run(`cd "$(dirname "$NARUTO_PROMPT_FILE")" && ln -s ${shellQuote(target)} again.md; mkfifo pipe.md; mkdir dir.md; true`, {
        workDir: dir,
      });
      expect(first.outcome).toBe("exited");
      const agent = await run(`cat "$NARUTO_PROMPT_FILE"`, { workDir: dir, prompt: "the second prompt\n" });
      expect(agent.output).toBe("the second prompt\n");
      expect(await readFile(target, "utf8")).toBe("the user's\n");
    });

    it("cannot write naruto's prompt or put anything beside it in the sandbox", async () => {
      const agent = await run(
        `echo changed > "$NARUTO_PROMPT_FILE" || echo refused; ln -s /etc/passwd "$(dirname "$NARUTO_PROMPT_FILE")/x" 2>/dev/null || echo refused`,
      );
      if (name === "none") return;
      expect(agent.output).toMatch(/refused\n.*refused\n$/s);
      expect(await readFile(agent.files?.prompt ?? "", "utf8")).toBe("# the prompt\nDo the thing.\n");
    });

    it("says what the agent left running", async () => {
      const agent = await run(`setsid sh -c 'exec sleep 1000' >/dev/null 2>&1 < /dev/null & sleep 0.3`);
      expect(agent.outcome).toBe("exited");
      if (name === "none") expect(agent.notes).toEqual([expect.stringMatching(/^killed 1 process\(es\) the agent left running: \d+ \(sleep 1000\)$/)]);
      else expect(agent.notes).toEqual([]);
    });
  });
}
