/**
 * A scripted Anthropic Messages API for Claude Code (AGENTS.md, "Driving the CLIs offline"):
 * `HEAD /api/hello` (its reachability probe) and `POST /v1/messages`, answered as a stream of
 * server-sent events. A scenario's write step becomes a `Write` tool call with an absolute
 * `file_path` (Claude Code wants one: the working directory is read from the request's
 * "Primary working directory:" line), a shell step a `Bash` call, the end a text block. Usage
 * goes where the API puts it: input and cache tokens in `message_start`, output tokens in
 * `message_delta`.
 */
import type { ServerResponse } from "node:http";
import { resolve } from "node:path";
import { startLoopbackServer, writeSse, type LoopbackRequest } from "./loopback.ts";
import { pickScenario, turnAt, type Turn } from "./script.ts";
import type { ModelServer, Scenario, Usage } from "./types.ts";

interface MessagesRequest {
  readonly model?: string;
  readonly stream?: boolean;
  readonly system?: unknown;
  readonly messages?: readonly { readonly role: string; readonly content: unknown }[];
}

export async function startAnthropicServer(scenarios: readonly Scenario[]): Promise<ModelServer> {
  let ids = 0;
  return startLoopbackServer((request, response) => {
    const path = request.url.split("?")[0];
    if (request.method === "HEAD" && path === "/api/hello") return void response.writeHead(200).end();
    if (request.method === "POST" && path === "/v1/messages") return answer(request, response, scenarios, () => ++ids);
    response.writeHead(404, { "content-type": "application/json" });
    response.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `agents-check: no ${request.method} ${path} here` } }));
  });
}

function answer(request: LoopbackRequest, response: ServerResponse, scenarios: readonly Scenario[], nextId: () => number): void {
  const body = JSON.parse(request.body) as MessagesRequest;
  const messages = body.messages ?? [];
  const prompt = messages
    .filter((m) => m.role === "user")
    .flatMap((m) => texts(m.content))
    .join("\n");
  const scenario = pickScenario(scenarios, prompt);
  const usage: Usage = scenario?.usage ?? { input: 0, output: 0 };
  const turn: Turn =
    scenario === null
      ? { kind: "say", text: "agents-check: no scenario matches this prompt" }
      : turnAt(scenario, messages.filter((m) => m.role === "assistant").length);
  const block = contentBlock(turn, workingDirectory([...texts(body.system), ...messages.flatMap((m) => texts(m.content))]), `toolu_agents_check_${nextId()}`);
  const stopReason = block.type === "tool_use" ? "tool_use" : "end_turn";
  const model = body.model ?? "claude-agents-check";
  const startUsage = { input_tokens: usage.input, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: usage.cacheRead ?? 0 };
  const id = `msg_agents_check_${nextId()}`;

  if (body.stream !== true) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        id,
        type: "message",
        role: "assistant",
        model,
        content: [block],
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { ...startUsage, output_tokens: usage.output },
      }),
    );
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  writeSse(
    response,
    {
      type: "message_start",
      message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: startUsage },
    },
    "message_start",
  );
  if (block.type === "tool_use") {
    writeSse(response, { type: "content_block_start", index: 0, content_block: { ...block, input: {} } }, "content_block_start");
    writeSse(
      response,
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } },
      "content_block_delta",
    );
  } else {
    writeSse(response, { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start");
    writeSse(response, { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: block.text } }, "content_block_delta");
  }
  writeSse(response, { type: "content_block_stop", index: 0 }, "content_block_stop");
  writeSse(
    response,
    { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output } },
    "message_delta",
  );
  writeSse(response, { type: "message_stop" }, "message_stop");
  response.end();
}

type Block =
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: Record<string, string> }
  | { readonly type: "text"; readonly text: string };

function contentBlock(turn: Turn, cwd: string | null, id: string): Block {
  switch (turn.kind) {
    case "say":
      return { type: "text", text: turn.text };
    case "shell":
      return { type: "tool_use", id, name: "Bash", input: { command: turn.command, description: "a scripted shell step" } };
    case "write":
      if (cwd === null) throw new Error('the request has no "Primary working directory:" line to resolve the Write step against');
      return { type: "tool_use", id, name: "Write", input: { file_path: resolve(cwd, turn.path), content: turn.content } };
  }
}

/** The text of a `system` or message `content` field: a string, or an array of blocks. */
function texts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((b: unknown) =>
    typeof b === "object" && b !== null && "type" in b && b.type === "text" && "text" in b && typeof b.text === "string" ? [b.text] : [],
  );
}

function workingDirectory(parts: readonly string[]): string | null {
  for (const part of parts) {
    const found = /Primary working directory: (\S[^\n]*)/.exec(part);
    if (found?.[1] !== undefined) return found[1].trim();
  }
  return null;
}
