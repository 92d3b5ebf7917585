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
 */
import type { Probot } from "probot";
import { narutoApp } from "./app.ts";
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

/** A handler for one Probot: what tests call, and what `handle` below is built on. */
export function createHandler(probot: Probot): (request: FunctionRequest) => Promise<FunctionResponse> {
  return async (request) => {
    const header = (name: string) => Object.entries(request.headers).find(([key]) => key.toLowerCase() === name)?.[1];
    const id = header("x-github-delivery");
    const name = header("x-github-event");
    const signature = header("x-hub-signature-256");
    if (!id || !name || !signature) return { status: 400, body: "missing x-github-delivery, x-github-event or x-hub-signature-256" };
    // Checked apart first so a forged request gets 401 without telling errors apart by message.
    if (!(await probot.webhooks.verify(request.body, signature))) return { status: 401, body: "signature does not match" };
    try {
      // The webhooks library's event-name type is a union; it checks GitHub's header itself.
      await probot.webhooks.verifyAndReceive({ id, name: name as "issue_comment", signature, payload: request.body });
      return { status: 200, body: "ok" };
    } catch (error) {
      probot.log.error({ err: error }, `delivery ${id} (${name}) failed`);
      return { status: 500, body: "naruto could not handle this event; see the app's log" };
    }
  };
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
