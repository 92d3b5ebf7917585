import { afterEach, describe, expect, it } from "vitest";
import { startAnthropicServer } from "../../scripts/agents-check/anthropic-server.ts";
import { turnsOf } from "../../scripts/agents-check/script.ts";
import type { ModelServer, Scenario } from "../../scripts/agents-check/types.ts";
import { readSse, type SseEvent } from "./sse.ts";

// The scripted Anthropic server of `npm run agents-check`, spoken to as Claude Code 2.1.328 does
// (AGENTS.md, "Driving the CLIs offline"): the working directory in a system message, the
// conversation so far in `messages`, `stream: true`.
const SCENARIO: Scenario = {
  match: "[agents-check:demo]",
  steps: [{ write: { path: "notes/a.txt", content: "A\n" } }, { shell: "git commit -qam x" }, { say: "all done" }],
  usage: { input: 120, output: 7, cacheRead: 30 },
};

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function request(prompt: string, answered: number) {
  const messages: unknown[] = [
    {
      role: "user",
      content: [
        { type: "text", text: "<system-reminder>gitStatus: clean</system-reminder>" },
        { type: "text", text: prompt },
      ],
    },
    { role: "system", content: [{ type: "text", text: "# Environment\n - Primary working directory: /w/work\n - Is a git repository: true" }] },
  ];
  for (let n = 0; n < answered; n++) {
    messages.push({ role: "assistant", content: [{ type: "tool_use", id: `t${n}`, name: "Write", input: {} }] });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${n}`, content: "ok" }] });
  }
  return { model: "claude-sonnet-5-5", stream: true, system: [{ type: "text", text: "You are a Claude agent" }], messages };
}

async function events(s: ModelServer, body: unknown): Promise<SseEvent[]> {
  return readSse(
    await fetch(`${s.url}/v1/messages?beta=true`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  );
}

describe("the scripted Anthropic Messages server", () => {
  it("answers Claude Code's reachability probe", async () => {
    server = await startAnthropicServer([SCENARIO]);
    expect((await fetch(`${server.url}/api/hello`, { method: "HEAD" })).status).toBe(200);
  });

  it("plays the scenario's steps one per turn: Write with an absolute path, Bash, then the final text", async () => {
    server = await startAnthropicServer([SCENARIO]);
    const first = await events(server, request("Do it. [agents-check:demo]", 0));
    expect(first.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(first[1]?.data).toMatchObject({ content_block: { type: "tool_use", name: "Write", input: {} } });
    expect(JSON.parse(String((first[2]!.data.delta as { partial_json: string }).partial_json))).toEqual({ file_path: "/w/work/notes/a.txt", content: "A\n" });
    expect(first[4]?.data).toMatchObject({ delta: { stop_reason: "tool_use" } });

    const second = await events(server, request("Do it. [agents-check:demo]", 1));
    expect(second[1]?.data).toMatchObject({ content_block: { type: "tool_use", name: "Bash" } });
    expect(JSON.parse(String((second[2]!.data.delta as { partial_json: string }).partial_json))).toMatchObject({ command: "git commit -qam x" });

    const third = await events(server, request("Do it. [agents-check:demo]", 2));
    expect(third[1]?.data).toMatchObject({ content_block: { type: "text" } });
    expect(third[2]?.data).toMatchObject({ delta: { type: "text_delta", text: "all done" } });
    expect(third[4]?.data).toMatchObject({ delta: { stop_reason: "end_turn" } });
    expect(turnsOf(SCENARIO)).toBe(3);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(Array(3).fill("POST /v1/messages?beta=true"));
  });

  it("reports the scenario's usage where the API puts it: input and cache in message_start, output in message_delta", async () => {
    server = await startAnthropicServer([SCENARIO]);
    const stream = await events(server, request("[agents-check:demo]", 0));
    expect(stream[0]?.data).toMatchObject({
      message: { model: "claude-sonnet-5-5", usage: { input_tokens: 120, cache_read_input_tokens: 30, cache_creation_input_tokens: 0 } },
    });
    expect(stream[4]?.data).toMatchObject({ usage: { output_tokens: 7 } });
  });

  it("says so in its answer when no scenario matches the prompt, and reports no usage", async () => {
    server = await startAnthropicServer([SCENARIO]);
    const stream = await events(server, request("something else", 0));
    expect(stream[2]?.data).toMatchObject({ delta: { text: "agents-check: no scenario matches this prompt" } });
    expect(stream[0]?.data).toMatchObject({ message: { usage: { input_tokens: 0 } } });
  });

  it("refuses a write step it cannot resolve (no working directory in the request) with an error the CLI shows", async () => {
    server = await startAnthropicServer([SCENARIO]);
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ stream: true, messages: [{ role: "user", content: "[agents-check:demo]" }] }),
    });
    expect(response.status).toBe(500);
    expect(await response.text()).toContain("Primary working directory");
  });
});
