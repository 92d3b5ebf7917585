/**
 * An HTTP server on 127.0.0.1 that records every request it receives (for the check's
 * diagnostics) and hands each, with its whole body read, to a vendor's handler. The scripted
 * model servers are built on it; nothing here knows a wire API.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ModelServer, RecordedRequest } from "./types.ts";

export interface LoopbackRequest extends RecordedRequest {
  readonly headers: IncomingMessage["headers"];
}

export type LoopbackHandler = (request: LoopbackRequest, response: ServerResponse) => void | Promise<void>;

/** Starts the server on a free port; a handler that throws answers 500 with the error's message. */
export async function startLoopbackServer(handler: LoopbackHandler): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: LoopbackRequest = { method: req.method ?? "GET", url: req.url ?? "/", body: Buffer.concat(chunks).toString("utf8"), headers: req.headers };
      requests.push({ method: request.method, url: request.url, body: request.body });
      Promise.resolve()
        .then(() => handler(request, res))
        .catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: `agents-check model server: ${message}` } }));
        });
    });
  });
  // CLIs keep connections alive; close() must not wait for them.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes one server-sent event (`event:` line when named, one `data:` line of JSON). */
export function writeSse(response: ServerResponse, data: unknown, event?: string): void {
  response.write(`${event === undefined ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`);
}
