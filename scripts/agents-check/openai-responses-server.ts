/**
 * A scripted OpenAI Responses API on 127.0.0.1, as Codex CLI calls it: `POST /v1/responses` with
 * `stream: true`, answered with server-sent events. Each request is one model turn; which turn
 * it is, and what it says, comes from the request itself (openai-responses-script.ts), so the
 * server keeps no conversation state and any number of agents may share it.
 *
 * The events are the ones the real API streams for one output item: `response.created`,
 * `response.in_progress`, `response.output_item.added`, the item's deltas and their `.done`,
 * `response.output_item.done`, and `response.completed` carrying the scenario's usage.
 */
import type { ServerResponse } from "node:http";
import { startLoopbackServer, writeSse } from "./loopback.ts";
import { answer, type Reply } from "./openai-responses-script.ts";
import type { ModelServer, Scenario, Usage } from "./types.ts";

export async function startOpenAiResponsesServer(scenarios: readonly Scenario[]): Promise<ModelServer> {
  let served = 0;
  return startLoopbackServer((request, response) => {
    const path = request.url.split("?")[0];
    if (request.method !== "POST" || path !== "/v1/responses")
      return sendError(response, 404, `no ${request.method} ${path} here: the scripted server answers POST /v1/responses`);
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return sendError(response, 400, "the request body is not JSON");
    }
    const turn = answer(body, scenarios);
    if (turn.kind === "refusal") return sendError(response, turn.status, turn.message);
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const events = responseEvents({ id: `resp_agents_check_${++served}`, reply: turn.reply, usage: turn.usage });
    events.forEach((event, sequence) => writeSse(response, { ...event, sequence_number: sequence }, event.type));
    response.end();
  });
}

type Event = { readonly type: string } & Record<string, unknown>;

/** The events of one model turn that answers with `reply` (pure). */
export function responseEvents(input: { readonly id: string; readonly reply: Reply; readonly usage: Usage }): Event[] {
  const { id, reply } = input;
  const itemId = `${reply.kind === "message" ? "msg" : "ctc"}_${id}`;
  const callId = `call_${id}`;
  const response = (status: string, extra: Record<string, unknown> = {}) => ({ id, object: "response", status, output: [], ...extra });
  const events: Event[] = [
    { type: "response.created", response: response("in_progress") },
    { type: "response.in_progress", response: response("in_progress") },
  ];
  let done: Record<string, unknown>;
  if (reply.kind === "message") {
    const part = { type: "output_text", text: reply.text, annotations: [] };
    done = { type: "message", id: itemId, role: "assistant", status: "completed", content: [part] };
    events.push(
      { type: "response.output_item.added", output_index: 0, item: { ...done, status: "in_progress", content: [] } },
      { type: "response.content_part.added", item_id: itemId, output_index: 0, content_index: 0, part: { ...part, text: "" } },
      { type: "response.output_text.delta", item_id: itemId, output_index: 0, content_index: 0, delta: reply.text },
      { type: "response.output_text.done", item_id: itemId, output_index: 0, content_index: 0, text: reply.text },
      { type: "response.content_part.done", item_id: itemId, output_index: 0, content_index: 0, part },
    );
  } else if (reply.kind === "custom_tool_call") {
    done = { type: "custom_tool_call", id: itemId, call_id: callId, name: reply.name, input: reply.input, status: "completed" };
    events.push(
      { type: "response.output_item.added", output_index: 0, item: { ...done, input: "", status: "in_progress" } },
      { type: "response.custom_tool_call_input.delta", item_id: itemId, output_index: 0, delta: reply.input },
      { type: "response.custom_tool_call_input.done", item_id: itemId, output_index: 0, input: reply.input },
    );
  } else {
    done = { type: "function_call", id: itemId, call_id: callId, name: reply.name, arguments: reply.arguments, status: "completed" };
    events.push(
      { type: "response.output_item.added", output_index: 0, item: { ...done, arguments: "", status: "in_progress" } },
      { type: "response.function_call_arguments.delta", item_id: itemId, output_index: 0, delta: reply.arguments },
      { type: "response.function_call_arguments.done", item_id: itemId, output_index: 0, arguments: reply.arguments },
    );
  }
  events.push(
    { type: "response.output_item.done", output_index: 0, item: done },
    { type: "response.completed", response: response("completed", { output: [done], usage: wireUsage(input.usage) }) },
  );
  return events;
}

/**
 * The API's usage object. OpenAI counts cached tokens inside `input_tokens` (and again in
 * `cached_tokens`), so a scenario's `input` and `cacheRead` add up there: the CLI's input count
 * is their sum, as Anthropic's `input + cache_read` is for Claude Code.
 */
export function wireUsage(usage: Usage): Record<string, unknown> {
  const cached = usage.cacheRead ?? 0;
  const input = usage.input + cached;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + usage.output,
  };
}

/** An error in the API's own shape; 4xx so that the CLI stops at once instead of retrying. */
function sendError(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: { message: `naruto agents-check: ${message}`, type: "invalid_request_error", param: null, code: null } }));
}
