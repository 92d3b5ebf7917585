/**
 * The App's HTTP side for `npm start`: POSTs to the webhook path go to the same handler as on a
 * function host (serverless.ts `createHandler`), so both answer alike — 401 for a signature that
 * does not match, 200 once naruto's work for the event is done, 500 when it failed.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { FunctionRequest, FunctionResponse } from "./serverless.ts";

/** GitHub drops payloads over 25 MB; nothing larger is a webhook. */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

export function webhookListener(handler: (request: FunctionRequest) => Promise<FunctionResponse>, options: { path: string; maxBytes?: number }): RequestListener {
  const limit = options.maxBytes ?? MAX_WEBHOOK_BYTES;
  return (request, response) => {
    void serve(handler, options.path, limit, request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  };
}

async function serve(handler: (request: FunctionRequest) => Promise<FunctionResponse>, path: string, limit: number, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://localhost");
  if (url.pathname !== path) return answer(response, 404, "not found");
  if (request.method !== "POST") return answer(response, 405, `POST GitHub's webhooks to ${path}`);
  const body = await readBody(request, limit);
  if (body === null) return answer(response, 413, "the payload is larger than GitHub sends");
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  const { status, body: text } = await handler({ headers, body });
  answer(response, status, text);
}

/** The raw body (the signature is over these bytes); null past the limit. */
async function readBody(request: IncomingMessage, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function answer(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(`${text}\n`);
}
