/**
 * The App's HTTP side for `npm start`: POSTs to the webhook path go to the same handler as on a
 * function host (serverless.ts `createHandler`), so both answer alike. The server is reachable
 * by anyone, so it spends little on a request that is not GitHub's:
 *
 * - Headers first: another path 404, another method 405, and what `checkWebhookHeaders` refuses
 *   (no or a malformed signature 401, a missing GitHub header 400, not JSON 415), or a
 *   Content-Length over 25 MiB 413, are answered before a byte of the body is read.
 * - The body is hashed (HMAC-SHA256 with the webhook secret) as it streams in. It has to be kept
 *   too, since whether the signature matches is only known at its end; it is kept only because
 *   the signature header is well-formed, and only up to 25 MiB per request (413) and
 *   `maxBufferedBytes` across the requests in flight (503), in one arena that refused bodies
 *   give back at once. A body that does not match its signature is answered 401 and dropped,
 *   an empty one 400.
 * - Time and connections: the headers must arrive within `headersTimeoutMs`, the whole request
 *   within `requestTimeoutMs`, the body without a pause longer than `bodyIdleTimeoutMs` (408);
 *   at most `maxConnections` are open, more are closed as they come.
 *
 * Whatever is refused is answered with `Connection: close`, and the connection is closed once
 * the answer is out: the rest of the body is never read (`refuse`).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { checkWebhookHeaders, type FunctionRequest, type FunctionResponse } from "./serverless.ts";
import { AppSettingsError, type Env } from "./settings.ts";

/** GitHub drops payloads over 25 MB; nothing larger is a webhook. */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

export interface WebhookLimits {
  /** Largest body of one request. */
  readonly maxBytes: number;
  /** Largest sum of the bodies kept by all requests in flight. */
  readonly maxBufferedBytes: number;
  readonly maxConnections: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** Longest pause between two parts of a body. */
  readonly bodyIdleTimeoutMs: number;
}

/** GitHub gives up on a delivery after 10 s; no limit here is tighter than what it needs. */
export const DEFAULT_WEBHOOK_LIMITS: WebhookLimits = {
  maxBytes: MAX_WEBHOOK_BYTES,
  maxBufferedBytes: 64 * 1024 * 1024,
  maxConnections: 100,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  bodyIdleTimeoutMs: 10_000,
};

const LIMIT_VARIABLES: ReadonlyArray<readonly [keyof WebhookLimits, string]> = [
  ["maxBufferedBytes", "NARUTO_WEBHOOK_MAX_BUFFERED_BYTES"],
  ["maxConnections", "NARUTO_WEBHOOK_MAX_CONNECTIONS"],
  ["headersTimeoutMs", "NARUTO_WEBHOOK_HEADERS_TIMEOUT_MS"],
  ["requestTimeoutMs", "NARUTO_WEBHOOK_REQUEST_TIMEOUT_MS"],
  ["bodyIdleTimeoutMs", "NARUTO_WEBHOOK_BODY_TIMEOUT_MS"],
];

/** The limits, with any of the `NARUTO_WEBHOOK_*` variables above set over the defaults. */
export function webhookLimitsFrom(env: Env): WebhookLimits {
  const limits: Record<keyof WebhookLimits, number> = { ...DEFAULT_WEBHOOK_LIMITS };
  for (const [key, name] of LIMIT_VARIABLES) {
    const text = env[name];
    if (!text) continue;
    const value = Number(text);
    if (!Number.isInteger(value) || value <= 0) throw new AppSettingsError(`naruto app: ${name} must be a positive whole number, not "${text}"`);
    limits[key] = value;
  }
  return limits;
}

export interface WebhookServerInput {
  readonly handler: (request: FunctionRequest) => Promise<FunctionResponse>;
  /** Where GitHub POSTs (`/api/github/webhooks`). */
  readonly path: string;
  /** The App's webhook secret, to hash bodies as they arrive. */
  readonly secret: string;
  readonly limits?: WebhookLimits;
  /**
   * What `GET /healthz` answers, as JSON (a load balancer's or orchestrator's health check, and
   * how tests see that the deliveries handled after their answer are done); none: 404.
   */
  readonly health?: () => Readonly<Record<string, unknown>>;
}

/** An HTTP server (not yet listening) that serves the handler within the limits. */
export function createWebhookServer(input: WebhookServerInput): Server {
  const limits = input.limits ?? DEFAULT_WEBHOOK_LIMITS;
  // Node checks the header and request timeouts on this interval (30 s by default).
  const checkEvery = Math.max(10, Math.min(1_000, limits.headersTimeoutMs, limits.requestTimeoutMs));
  const arena = createArena(limits);
  const server = createServer({ connectionsCheckingInterval: checkEvery }, (request, response) => {
    serve({ request, response, input, limits, arena }).catch(() => {
      if (response.headersSent) response.destroy();
      else refuse(request, response, { status: 500, body: "naruto could not answer" });
    });
  });
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.maxConnections = limits.maxConnections;
  return server;
}

interface Serving {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly input: WebhookServerInput;
  readonly limits: WebhookLimits;
  readonly arena: Arena;
}

async function serve({ request, response, input, limits, arena }: Serving): Promise<void> {
  // A client that goes away mid-body makes the request emit an error; it is handled as "gone".
  request.on("error", () => undefined);
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  if (input.health !== undefined && request.method === "GET" && new URL(request.url ?? "/", "http://localhost").pathname === "/healthz") {
    response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(`${JSON.stringify(input.health())}\n`);
    return;
  }
  const early = refusalBeforeBody({ method: request.method, url: request.url, headers }, { path: input.path, maxBytes: limits.maxBytes });
  if (early.refused) return refuse(request, response, early);
  const read = await readSigned(request, { secret: input.secret, signature: early.signature, limits, arena });
  if (read.kind === "gone") return;
  if (read.kind === "refused") return refuse(request, response, read);
  const answer = await input.handler({ headers, body: read.body });
  response.writeHead(answer.status, { "content-type": "text/plain; charset=utf-8" }).end(`${answer.body}\n`);
}

type Early = { readonly refused: true; readonly status: number; readonly body: string } | { readonly refused: false; readonly signature: string };

/** What the request line and headers alone decide. */
function refusalBeforeBody(
  request: { method: string | undefined; url: string | undefined; headers: FunctionRequest["headers"] },
  options: { path: string; maxBytes: number },
): Early {
  const url = new URL(request.url ?? "/", "http://localhost");
  if (url.pathname !== options.path) return { refused: true, status: 404, body: "not found" };
  if (request.method !== "POST") return { refused: true, status: 405, body: `POST GitHub's webhooks to ${options.path}` };
  const checked = checkWebhookHeaders(request.headers);
  if (!checked.ok) return { refused: true, status: checked.status, body: checked.body };
  const length = Number(request.headers["content-length"] ?? 0);
  if (length > options.maxBytes) return { refused: true, status: 413, body: "the payload is larger than GitHub sends" };
  return { refused: false, signature: checked.signature };
}

type Read =
  | { readonly kind: "body"; readonly body: string }
  | { readonly kind: "refused"; readonly status: number; readonly body: string }
  /** The client went away. */
  | { readonly kind: "gone" };

/**
 * Reads the body into blocks of the arena while hashing it, and refuses as soon as a limit is
 * passed. The blocks go back to the arena as soon as the body is checked: a verified body is
 * handed on as a string of its own.
 */
function readSigned(request: IncomingMessage, options: { secret: string; signature: string; limits: WebhookLimits; arena: Arena }): Promise<Read> {
  const { limits, arena } = options;
  return new Promise((resolve) => {
    const hmac = createHmac("sha256", options.secret);
    const blocks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: Buffer): boolean => {
      for (let offset = 0; offset < chunk.length; ) {
        if (size % arena.blockSize === 0) {
          const block = arena.take();
          if (block === null) return false;
          blocks.push(block);
        }
        const copied = chunk.copy(blocks.at(-1)!, size % arena.blockSize, offset);
        offset += copied;
        size += copied;
      }
      return true;
    };
    const finish = (read: Read) => {
      clearTimeout(idle);
      request.off("data", onData).off("end", onEnd).off("close", onClose);
      request.pause();
      for (const block of blocks) arena.give(block);
      resolve(read);
    };
    const idle = setTimeout(() => finish({ kind: "refused", status: 408, body: "the body stalled" }), limits.bodyIdleTimeoutMs);
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limits.maxBytes) return finish({ kind: "refused", status: 413, body: "the payload is larger than GitHub sends" });
      if (!keep(chunk)) return finish({ kind: "refused", status: 503, body: "too many deliveries at once; redeliver it" });
      hmac.update(chunk);
      idle.refresh();
    };
    const onEnd = () => {
      if (size === 0) return finish({ kind: "refused", status: 400, body: "the body is empty" });
      const expected = Buffer.from(`sha256=${hmac.digest("hex")}`);
      if (!timingSafeEqual(expected, Buffer.from(options.signature))) return finish({ kind: "refused", status: 401, body: "signature does not match" });
      finish({ kind: "body", body: Buffer.concat(blocks, size).toString("utf8") });
    };
    const onClose = () => finish({ kind: "gone" });
    request.on("data", onData).on("end", onEnd).on("close", onClose);
  });
}

/** How long a refused connection stays half-open so that its client reads the answer. */
const LINGER_MS = 1_000;

/**
 * Answers, then closes the connection without reading what is left of the request. Not with
 * `response.end()`: Node would then drop the connection at once, and a client still sending its
 * body would get a reset in place of the answer. The answer is written whole (it has a
 * Content-Length), the connection half-closed, and dropped a moment later; meanwhile nothing is
 * read, so the client's sending stalls.
 */
function refuse(request: IncomingMessage, response: ServerResponse, answer: { status: number; body: string }): void {
  const text = `${answer.body}\n`;
  request.pause();
  response
    .writeHead(answer.status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text), connection: "close" })
    .write(text);
  request.socket.end();
  setTimeout(() => request.socket.destroy(), LINGER_MS).unref();
}

/**
 * The memory bodies are kept in until their signature is checked: one allocation, lent out in
 * blocks. A refused body's blocks are lent again at once, so what unverified bodies occupy never
 * passes its size, however many arrive (buffers of their own would linger until the garbage
 * collector ran).
 */
interface Arena {
  readonly blockSize: number;
  /** A free block, or null when all are lent. */
  take(): Buffer | null;
  give(block: Buffer): void;
}

function createArena(limits: WebhookLimits): Arena {
  const blockSize = Math.min(64 * 1024, limits.maxBytes, limits.maxBufferedBytes);
  const count = Math.floor(limits.maxBufferedBytes / blockSize);
  // Never touched until lent, so it costs no memory before deliveries need it.
  const memory = Buffer.allocUnsafeSlow(count * blockSize);
  const free: Buffer[] = Array.from({ length: count }, (_, i) => memory.subarray(i * blockSize, (i + 1) * blockSize));
  return {
    blockSize,
    take: () => free.pop() ?? null,
    give: (block) => {
      free.push(block);
    },
  };
}
