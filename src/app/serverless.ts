/**
 * A handler for function hosts (AWS Lambda behind a function URL, Google Cloud Functions, Azure
 * Functions, Vercel …): `(request) → { status, body }`. The official Probot adapters still
 * depend on Probot 13, so this is the small handler they would be, on `verifyAndReceive` of the
 * one Probot 14 the App uses. Wrap it in your host's request/response shape:
 *
 * @example
 * // AWS Lambda (function URL)
 * export const lambda = async (event) => {
 *   const { status, body } = await handle({ headers: event.headers, body: event.body });
 *   return { statusCode: status, body };
 * };
 *
 * The handler waits for naruto's work (a permission check, a reaction, a state write, a
 * dispatch) before answering: hosts freeze what runs after the answer. A deferred
 * tracking-comment render may be lost that way; the next event renders the state again.
 *
 * What is not a signed JSON delivery is refused with a 4xx and reaches no handler: a missing or
 * malformed signature or one that does not match 401, a missing event or delivery header, an
 * empty body or one that is not a JSON object 400, another content type 415. 500 means naruto
 * failed on a genuine delivery.
 */
import type { Probot } from "probot";
import { narutoApp } from "./app.ts";
import type { DeliveryQueue } from "./deliveries.ts";
import { appDepsFrom, probotFrom, type Env } from "./settings.ts";

export interface FunctionRequest {
  /** Header names in any case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The raw body, exactly as GitHub sent it (the signature is over these bytes). */
  readonly body: string;
}

export interface FunctionResponse {
  readonly status: number;
  readonly body: string;
}

/** What GitHub sends in `X-Hub-Signature-256`: `sha256=` and the HMAC-SHA256 of the body in hex. */
export const SIGNATURE = /^sha256=[0-9a-f]{64}$/i;

/** A request refused before its body matters, with the status and what to tell the sender. */
export type HeaderCheck = { readonly ok: true; readonly signature: string } | { readonly ok: false; readonly status: 400 | 401 | 415; readonly body: string };

/**
 * Decides from the headers alone (names in any case): a missing or malformed signature 401,
 * missing event or delivery id 400, a body that is not JSON 415. GitHub sends all of these on
 * every delivery, so a request without them is not worth reading.
 */
export function checkWebhookHeaders(headers: FunctionRequest["headers"]): HeaderCheck {
  const header = (name: string) => headerOf(headers, name);
  const signature = header("x-hub-signature-256");
  if (!signature || !SIGNATURE.test(signature)) return { ok: false, status: 401, body: "x-hub-signature-256 is missing or not sha256=<64 hex digits>" };
  if (!header("x-github-delivery") || !header("x-github-event")) return { ok: false, status: 400, body: "missing x-github-delivery or x-github-event" };
  const type = header("content-type");
  // GitHub also offers form-encoded deliveries; the App is registered with JSON (docs/app.md).
  if (type !== undefined && !/^application\/json\s*(?:;|$)/i.test(type)) return { ok: false, status: 415, body: "send webhooks as application/json" };
  return { ok: true, signature: signature.toLowerCase() };
}

export interface HandlerOptions {
  /**
   * Answer a verified delivery 202 at once and handle it after the answer, once per delivery id
   * (deliveries.ts): for a long-running server (`npm start`). Without it the answer waits for
   * the work, as a function host needs (it freezes what runs after the answer).
   */
  readonly queue?: DeliveryQueue;
}

/** A handler for one Probot: what tests call, and what `handle` below is built on. */
export function createHandler(probot: Probot, options: HandlerOptions = {}): (request: FunctionRequest) => Promise<FunctionResponse> {
  return async (request) => {
    const checked = checkWebhookHeaders(request.headers);
    if (!checked.ok) return { status: checked.status, body: checked.body };
    if (request.body === "") return { status: 400, body: "the body is empty" };
    // Checked apart first so a forged request gets 401 without telling errors apart by message.
    if (!(await probot.webhooks.verify(request.body, checked.signature))) return { status: 401, body: "signature does not match" };
    if (!isJsonObject(request.body)) return { status: 400, body: "the body is not a JSON object" };
    const id = headerOf(request.headers, "x-github-delivery") ?? "";
    const name = headerOf(request.headers, "x-github-event") ?? "";
    if (options.queue !== undefined) {
      // Verified above: handled as is, after the answer. The event-name type is a union.
      const event = { id, name, payload: JSON.parse(request.body) as unknown } as Parameters<typeof probot.webhooks.receive>[0];
      const taken = options.queue.take(id, () => probot.webhooks.receive(event));
      return { status: 202, body: taken === "accepted" ? "accepted" : "already taken: this delivery is being handled or was" };
    }
    try {
      // The webhooks library's event-name type is a union; it checks GitHub's header itself.
      await probot.webhooks.verifyAndReceive({ id, name: name as "issue_comment", signature: checked.signature, payload: request.body });
      return { status: 200, body: "ok" };
    } catch (error) {
      probot.log.error({ err: error }, `delivery ${id} (${name}) failed`);
      return { status: 500, body: "naruto could not handle this event; see the app's log" };
    }
  };
}

function headerOf(headers: FunctionRequest["headers"], name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

let ready: Promise<(request: FunctionRequest) => Promise<FunctionResponse>> | null = null;

/** The function host's entry: builds the App once per instance from the process environment. */
export function handle(request: FunctionRequest): Promise<FunctionResponse> {
  ready ??= (async () => {
    const env: Env = process.env;
    const probot = probotFrom(env);
    const deps = await appDepsFrom(env, probot);
    await probot.load((app) => {
      narutoApp(app, deps);
    });
    return createHandler(probot);
  })();
  return ready.then((handler) => handler(request));
}
