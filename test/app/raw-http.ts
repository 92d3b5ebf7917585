/**
 * HTTP on a bare socket, for what `fetch` will not do: send the head of a request and stall,
 * send a body a little at a time, or hold a connection open. Each exchange records what the
 * server answered and whether it closed the connection; waiting is bounded by the test's own
 * timeout, never asserted on.
 *
 * @example
 *   const exchange = openExchange({ port, head: webhookHead({ path, length: 10 }) });
 *   exchange.write("{");           // …and nothing more
 *   await exchange.closed;         // the server gave up on it
 *   expect(exchange.status()).toBe(408);
 */
import { connect, type Socket } from "node:net";

export interface Exchange {
  readonly socket: Socket;
  /** Resolves when the connection is closed, by either side. */
  readonly closed: Promise<void>;
  /** The status of the server's answer, or null while there is none. */
  status(): number | null;
  write(text: string | Buffer): void;
  close(): void;
}

export function openExchange(input: { port: number; head: string }): Exchange {
  const socket = connect(input.port, "127.0.0.1");
  let received = "";
  socket.setEncoding("latin1");
  socket.on("data", (data: string) => {
    received += data;
  });
  // A server that closes first makes later writes fail; the close is what the tests look at.
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.write(input.head);
  return {
    socket,
    closed,
    status: () => {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      return match ? Number(match[1]) : null;
    },
    write: (text) => {
      if (!socket.destroyed) socket.write(text);
    },
    close: () => socket.destroy(),
  };
}

/** The head of a POST with GitHub's headers; `signature` defaults to a well-formed one. */
export function webhookHead(input: { path: string; length?: number; signature?: string | null; event?: string; chunked?: boolean }): string {
  const lines = [
    `POST ${input.path} HTTP/1.1`,
    "Host: 127.0.0.1",
    "Content-Type: application/json",
    `X-GitHub-Event: ${input.event ?? "ping"}`,
    "X-GitHub-Delivery: d-raw",
  ];
  const signature = input.signature === undefined ? `sha256=${"ab".repeat(32)}` : input.signature;
  if (signature !== null) lines.push(`X-Hub-Signature-256: ${signature}`);
  lines.push(input.chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${input.length ?? 0}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}
