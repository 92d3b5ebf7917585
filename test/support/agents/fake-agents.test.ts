import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgent, type AgentRun } from "../../../src/agent/run-agent.ts";
import { bareWorkDir, unsandboxed } from "../sandbox.ts";
import { fakeAgentCommand, type FakeAgent } from "./index.ts";

let dir: Awaited<ReturnType<typeof bareWorkDir>>;
let work: string;

beforeEach(async () => {
  dir = await bareWorkDir();
  work = dir.path;
});

afterEach(async () => {
  await dir.remove();
});

async function run(name: FakeAgent, options: { env?: Record<string, string>; prompt?: string; attempt?: number } = {}): Promise<AgentRun> {
  return runAgent({
    command: fakeAgentCommand(name),
    sandbox: unsandboxed(),
    workDir: dir,
    prompt: options.prompt ?? "# item\n",
    env: { PATH: process.env.PATH, ...options.env },
    allowEnv: Object.keys(options.env ?? {}),
    network: true,
    mission: "m-test",
    item: "it-1",
    attempt: options.attempt ?? 1,
    writes: ["src/", "README.md"],
    timeoutMs: 60_000,
  });
}

const tree = async () => (await readdir(work, { recursive: true })).sort();

describe("fake agents", () => {
  it("edit: by default writes one file inside its first write path", async () => {
    const agent = await run("edit");
    expect(agent.outcome).toBe("exited");
    expect(await readFile(join(work, "src/it-1.txt"), "utf8")).toBe("edited by it-1 (attempt 1)\n");
  });

  it("edit: follows NARUTO_FAKE_EDITS, deleting with null", async () => {
    await writeFile(join(work, "README.md"), "old");
    const agent = await run("edit", { env: { NARUTO_FAKE_EDITS: JSON.stringify({ "src/a.ts": "a", "README.md": null }) } });
    expect(agent.outcome).toBe("exited");
    expect(await tree()).toEqual(["src", "src/a.ts"]);
    expect(agent.result?.summary).toBe("edit: changed src/a.ts, README.md");
  });

  it("edit: follows a fake-edits line in the prompt", async () => {
    await run("edit", { prompt: `# item\nfake-edits: {"src/b.ts": "b"}\n` });
    expect(await readFile(join(work, "src/b.ts"), "utf8")).toBe("b");
  });

  it("slow: sleeps, then edits", async () => {
    const agent = await run("slow", { env: { NARUTO_FAKE_SLEEP_MS: "50" } });
    expect(agent.outcome).toBe("exited");
    expect(await tree()).toEqual(["src", "src/it-1.txt"]);
  });

  it("noop: exits 0 and changes nothing", async () => {
    const agent = await run("noop");
    expect(agent.outcome).toBe("exited");
    expect(await tree()).toEqual([]);
    expect(agent.result?.summary).toBe("nothing to do");
  });

  it("out-of-scope: also writes outside its write paths", async () => {
    const agent = await run("out-of-scope");
    expect(agent.outcome).toBe("exited");
    expect(await tree()).toEqual(["outside-it-1.txt", "src", "src/it-1.txt"]);
  });

  it("flaky: fails on attempt 1 and succeeds on attempt 2", async () => {
    expect(await run("flaky", { attempt: 1 })).toMatchObject({ outcome: "crashed", exitCode: 1 });
    expect(await tree()).toEqual([]);
    expect((await run("flaky", { attempt: 2 })).outcome).toBe("exited");
    expect(await tree()).toEqual(["src", "src/it-1.txt"]);
  });
});
