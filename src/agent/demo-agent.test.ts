import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bareWorkDir, unsandboxed } from "../../test/support/sandbox.ts";
import { demoAgentCommand } from "./demo-agent.ts";
import { buildPrompt } from "./prompt.ts";
import { runAgent, type AgentRun } from "./run-agent.ts";

let dir: Awaited<ReturnType<typeof bareWorkDir>>;
let work: string;

beforeEach(async () => {
  dir = await bareWorkDir();
  work = dir.path;
});

afterEach(async () => {
  await dir.remove();
});

async function files(entries: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(entries)) {
    await mkdir(dirname(join(work, path)), { recursive: true });
    await writeFile(join(work, path), content);
  }
}

/** Runs the demo agent on a prompt built the way naruto builds it, with `instructions` as the item prompt. */
async function demo(instructions: string, options: { attempt?: number; task?: string } = {}): Promise<AgentRun> {
  return runAgent({
    command: demoAgentCommand(process.execPath),
    sandbox: unsandboxed(),
    workDir: dir,
    prompt: buildPrompt({
      task: options.task ?? "Build the demo project",
      item: { id: "demo-item", title: "Demo item", prompt: instructions, writes: ["."], reads: [] },
    }),
    env: { PATH: process.env.PATH },
    allowEnv: [],
    network: true,
    mission: "m-demo",
    item: "demo-item",
    attempt: options.attempt ?? 1,
    writes: ["."],
    timeoutMs: 60_000,
  });
}

const read = (path: string) => readFile(join(work, path), "utf8");

describe("demo agent instruction language", () => {
  it("creates a file from a here-document, among prose", async () => {
    const agent = await demo(["Add the greeting module.", "", "create src/greet.ts <<EOF", "export const hi = 'hi';", "", "EOF", "That is all."].join("\n"));
    expect(agent.outcome).toBe("exited");
    expect(await read("src/greet.ts")).toBe("export const hi = 'hi';\n\n");
    expect(agent.result).toEqual({ summary: "created src/greet.ts", cost_usd: 0, tokens_in: 0, tokens_out: 0, model: "naruto-demo", failure: null });
  });

  it.each<[string, Record<string, string>, string, Record<string, string>]>([
    ["create from a string", {}, 'create a.txt "one\\ntwo\\n"', { "a.txt": "one\ntwo\n" }],
    ["create over an existing file", { "a.txt": "old" }, 'create a.txt "new"', { "a.txt": "new" }],
    ["append a string", { "a.txt": "one\n" }, 'append a.txt "two\\n"', { "a.txt": "one\ntwo\n" }],
    ["append to a new file", {}, 'append d/a.txt "x"', { "d/a.txt": "x" }],
    ["append a here-document", { "a.txt": "1\n" }, "append a.txt <<END\n2\n3\nEND", { "a.txt": "1\n2\n3\n" }],
    ["replace every occurrence", { "a.txt": "a-b-a" }, 'replace a.txt "a" => "$&"', { "a.txt": "$&-b-$&" }],
    ["run steps in order", {}, 'create a.txt "x"\nappend a.txt "y"\nreplace a.txt "xy" => "z"', { "a.txt": "z" }],
  ])("%s", async (_, before, instructions, after) => {
    await files(before);
    const agent = await demo(instructions);
    expect(agent.outcome).toBe("exited");
    for (const [path, content] of Object.entries(after)) expect(await read(path)).toBe(content);
  });

  it("deletes a file", async () => {
    await files({ "old.txt": "x", "keep.txt": "y" });
    const agent = await demo("delete old.txt");
    expect(agent.outcome).toBe("exited");
    expect(await readdir(work)).toEqual(["keep.txt"]);
    expect(agent.result?.summary).toBe("deleted old.txt");
  });

  it("ignores instructions in the request: only the work item is carried out", async () => {
    const agent = await demo("Nothing here.", { task: 'create task.txt "from the request"' });
    expect(agent.outcome).toBe("exited");
    expect(await readdir(work)).toEqual([]);
    expect(agent.result?.summary).toBe("no instructions found; nothing changed");
  });

  it.each<[string, string, number, RegExp]>([
    ["a missing text to replace", 'replace a.txt "zzz" => "y"', 1, /"zzz" is not in a.txt/],
    ["a missing file to replace in", 'replace b.txt "a" => "y"', 1, /b.txt does not exist/],
    ["a missing file to delete", "delete b.txt", 1, /b.txt does not exist/],
    ["a path leaving the work tree", 'create ../x.txt "y"', 2, /outside the work tree/],
    ["an absolute path", 'create /tmp/x.txt "y"', 2, /outside the work tree/],
    ["a path into .git", 'create .git/hooks/x "y"', 2, /outside the work tree/],
    ["an unterminated here-document", "create c.txt <<EOF\ntext", 2, /no line "EOF" ends the text/],
    ["a bad string escape", 'create c.txt "\\q"', 2, /not a valid JSON string/],
  ])("fails on %s", async (_, instructions, code, message) => {
    await files({ "a.txt": "abc" });
    const agent = await demo(instructions);
    expect(agent).toMatchObject({ outcome: "crashed", exitCode: code });
    expect(agent.output).toMatch(message);
    expect(agent.result?.summary).toMatch(message);
    expect(await readdir(work)).toEqual(["a.txt"]);
  });

  it("fails on the attempt it is told to and succeeds on the next (a retry in the demo)", async () => {
    const instructions = 'fail-on-attempt 1 "the first try always fails"\ncreate ok.txt "done"';
    const first = await demo(instructions, { attempt: 1 });
    expect(first).toMatchObject({ outcome: "crashed", exitCode: 1 });
    expect(first.output).toContain("the first try always fails (attempt 1)");
    const second = await demo(instructions, { attempt: 2 });
    expect(second.outcome).toBe("exited");
    expect(await read("ok.txt")).toBe("done");
  });

  it("sleeps", async () => {
    const agent = await demo("sleep 20ms\nsleep 0s");
    expect(agent.outcome).toBe("exited");
    expect(agent.result?.summary).toBe("slept 20ms; slept 0ms");
  });
});
