/**
 * The scripted Gemini API server of `npm run agents-check`: the wire format only (routes, JSON or
 * server-sent events); what the model says is `answerGemini`'s. Gemini CLI reaches it through
 * `GOOGLE_GEMINI_BASE_URL` and asks `POST /v1beta/models/MODEL:generateContent` (the router's
 * JSON) and `POST /v1beta/models/MODEL:streamGenerateContent?alt=sse` (the model's turns).
 */
import type { ServerResponse } from "node:http";
import { answerGemini, geminiError, type GeminiReply, type GeminiRequest } from "./gemini-turn.ts";
import { startLoopbackServer, writeSse } from "./loopback.ts";
import type { ModelServer, Scenario } from "./types.ts";

const ROUTE = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/**
 * Starts the server on 127.0.0.1 (a free port); it records every request it gets.
 *
 * @example const server = await startGeminiServer(scenarios); // GOOGLE_GEMINI_BASE_URL=server.url
 */
export async function startGeminiServer(scenarios: readonly Scenario[]): Promise<ModelServer> {
  return startLoopbackServer((request, response) => {
    const path = request.url.split("?")[0] ?? "";
    const route = ROUTE.exec(path);
    if (request.method !== "POST" || route === null) return send(response, geminiError(`no route ${request.method} ${path}`));
    let body: GeminiRequest;
    try {
      body = JSON.parse(request.body) as GeminiRequest;
    } catch {
      return send(response, geminiError("the body is not JSON"));
    }
    const reply = answerGemini({ model: decodeURIComponent(route[1] ?? ""), request: body, scenarios });
    if (route[2] !== "streamGenerateContent" || reply.status !== 200) return send(response, reply);
    // One event holds the whole turn: the CLI joins a stream's parts and takes its last usage.
    response.writeHead(200, { "content-type": "text/event-stream" });
    writeSse(response, reply.body);
    response.end();
  });
}

function send(response: ServerResponse, reply: GeminiReply): void {
  response.writeHead(reply.status, { "content-type": "application/json" });
  response.end(JSON.stringify(reply.body));
}
