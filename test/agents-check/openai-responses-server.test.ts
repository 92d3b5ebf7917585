import { afterEach, describe, expect, it } from "vitest";
import { addFilePatch } from "../../scripts/agents-check/openai-responses-script.ts";
import { startOpenAiResponsesServer } from "../../scripts/agents-check/openai-responses-server.ts";
import type { ModelServer, Scenario } from "../../scripts/agents-check/types.ts";
import { readSse, type SseEvent } from "./sse.ts";

// The scripted OpenAI Responses server of `npm run agents-check`, spoken to as Codex CLI 0.169.0
// does (requests recorded from the real CLI): the tools in an `additional_tools` input item (with
// its default model, one freeform `exec` tool in the `functions` namespace), the environment
// context and the prompt as user messages, and every earlier call and its output in `input`.
const SCENARIO: Scenario = {
  match: "[agents-check:demo]",
  steps: [{ write: { path: "notes/a.txt", content: "A\nB\n" } }, { shell: "git commit -qam x" }, { say: "all done" }],
  usage: { input: 120, output: 7, cacheRead: 30 },
};

const EXEC_TOOLS = [
  {
    type: "namespace",
    name: "functions",
    description: "",
    tools: [{ type: "custom", name: "exec", description: "Run JavaScript code", format: { type: "grammar", syntax: "lark", definition: "start: SOURCE" } }],
  },
];
/** What Codex offers a model it has no metadata for: top-level tools, no apply_patch. */
const UNKNOWN_MODEL_TOOLS = [
  { type: "function", name: "exec_command", parameters: { type: "object" } },
  { type: "function", name: "write_stdin", parameters: { type: "object" } },
];

function request(options: { prompt: string; answered: number; tools?: "exec" | "unknown-model" }) {
  const tools = options.tools ?? "exec";
  const input: unknown[] = [
    ...(tools === "exec" ? [{ type: "additional_tools", role: "developer", tools: EXEC_TOOLS }] : []),
    { type: "message", role: "developer", content: [{ type: "input_text", text: "You are Codex." }] },
    { type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context>\n  <cwd>/w/work</cwd>\n</environment_context>" }] },
    { type: "message", role: "user", content: [{ type: "input_text", text: options.prompt }] },
  ];
  for (let n = 0; n < options.answered; n++) {
    input.push({ type: "custom_tool_call", call_id: `c${n}`, name: "exec", input: "…" });
    input.push({ type: "custom_tool_call_output", call_id: `c${n}`, output: [{ type: "input_text", text: "Script completed" }] });
  }
  return { model: "gpt-6.1-sol", stream: true, store: false, input, ...(tools === "unknown-model" ? { tools: UNKNOWN_MODEL_TOOLS } : {}) };
}

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function post(s: ModelServer, body: unknown): Promise<Response> {
  return fetch(`${s.url}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

async function events(s: ModelServer, body: unknown): Promise<SseEvent[]> {
  return readSse(await post(s, body));
}

/** The item of `response.output_item.done`. */
function doneItem(stream: SseEvent[]): Record<string, unknown> {
  return stream.find((e) => e.event === "response.output_item.done")?.data.item as Record<string, unknown>;
}

/** Runs an `exec` script as Codex's isolate would, against recording stand-ins for its tools. */
async function runExec(source: string): Promise<{ tool: string; input: unknown }[]> {
  const calls: { tool: string; input: unknown }[] = [];
  const tools = new Proxy({}, { get: (_, tool: string) => async (input: unknown) => (calls.push({ tool, input }), {}) });
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<void>;
  await new AsyncFunction("tools", "text", source)(tools, () => {});
  return calls;
}

describe("the scripted OpenAI Responses server", () => {
  it("plays the scenario through Codex's exec tool: apply_patch, then exec_command, then the final message", async () => {
    server = await startOpenAiResponsesServer([SCENARIO]);
    const first = await events(server, request({ prompt: "Do it. [agents-check:demo]", answered: 0 }));
    expect(first.map((e) => e.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const write = doneItem(first);
    expect(write).toMatchObject({ type: "custom_tool_call", name: "exec" });
    expect(await runExec(String(write.input))).toEqual([{ tool: "apply_patch", input: "*** Begin Patch\n*** Add File: notes/a.txt\n+A\n+B\n*** End Patch\n" }]);

    const shell = doneItem(await events(server, request({ prompt: "Do it. [agents-check:demo]", answered: 1 })));
    expect(await runExec(String(shell.input))).toEqual([{ tool: "exec_command", input: { cmd: "git commit -qam x" } }]);

    const last = doneItem(await events(server, request({ prompt: "Do it. [agents-check:demo]", answered: 2 })));
    expect(last).toMatchObject({ type: "message", role: "assistant", content: [{ type: "output_text", text: "all done" }] });
  });

  it("reports the scenario's usage on every turn, the cached tokens inside input_tokens as OpenAI counts them", async () => {
    server = await startOpenAiResponsesServer([SCENARIO]);
    const stream = await events(server, request({ prompt: "[agents-check:demo]", answered: 2 }));
    expect(stream.at(-1)?.data).toMatchObject({
      type: "response.completed",
      response: { status: "completed", usage: { input_tokens: 150, input_tokens_details: { cached_tokens: 30 }, output_tokens: 7, total_tokens: 157 } },
    });
  });

  it("calls top-level tools when Codex offers no exec tool, and refuses a write it has no apply_patch for", async () => {
    server = await startOpenAiResponsesServer([{ ...SCENARIO, steps: [{ shell: "ls" }, { write: { path: "a", content: "a\n" } }] }]);
    const shell = doneItem(await events(server, request({ prompt: "[agents-check:demo]", answered: 0, tools: "unknown-model" })));
    expect(shell).toMatchObject({ type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "ls" }) });

    const write = await post(server, request({ prompt: "[agents-check:demo]", answered: 1, tools: "unknown-model" }));
    expect(write.status).toBe(400);
    expect(await write.json()).toMatchObject({
      error: { message: expect.stringContaining("offers neither exec nor apply_patch (offered: exec_command, write_stdin)") },
    });
  });

  it("answers a prompt no scenario matches with an error, not a made-up turn", async () => {
    server = await startOpenAiResponsesServer([SCENARIO]);
    const response = await post(server, request({ prompt: "something else", answered: 0 }));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { message: expect.stringContaining('no scenario matches this prompt (looked for "[agents-check:demo]")') },
    });
    expect(server.requests).toHaveLength(1);
  });
});

describe("addFilePatch", () => {
  it.each([
    ["a final newline is apply_patch's own", "one\ntwo\n", "+one\n+two\n"],
    ["content without one gets it", "one", "+one\n"],
    ["blank lines stay", "a\n\nb\n", "+a\n+\n+b\n"],
  ])("%s", (_, content, lines) => {
    expect(addFilePatch("x/y.txt", content)).toBe(`*** Begin Patch\n*** Add File: x/y.txt\n${lines}*** End Patch\n`);
  });
});
