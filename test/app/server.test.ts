/**
 * The webhook server of `npm start` in-process, around a recording handler: a signed delivery
 * reaches the handler byte for byte; everything else is refused from its headers, or as its body
 * streams in, and never reaches it. The same server as its own process, under load: see
 * webhook-server.test.ts. Against the listener before (no secret; every body read whole and
 * handed on), the signature, empty-body, content-type and budget cases reached the handler.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookServer, DEFAULT_WEBHOOK_LIMITS, webhookLimitsFrom } from "../../src/app/server.ts";
import type { FunctionRequest } from "../../src/app/serverless.ts";
import { AppSettingsError } from "../../src/app/settings.ts";
import { signWebhook } from "../support/fake-github/index.ts";
import { openExchange, webhookHead } from "./raw-http.ts";

const SECRET = "server-test-secret";
const seen: FunctionRequest[] = [];
let server: Server;
let url: string;
beforeAll(async () => {
  server = createWebhookServer({
    handler: async (request) => {
      seen.push(request);
      return request.body.includes("fail") ? { status: 500, body: "failed" } : { status: 200, body: "ok" };
    },
    path: "/api/github/webhooks",
    secret: SECRET,
    limits: { ...DEFAULT_WEBHOOK_LIMITS, maxBytes: 1000, maxBufferedBytes: 1500 },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function post(body: string, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: {
      "x-github-event": "issue_comment",
      "x-github-delivery": "d-1",
      "content-type": "application/json",
      "x-hub-signature-256": signWebhook(SECRET, body),
      ...headers,
    },
    body,
  });
}

describe("createWebhookServer", () => {
  it("gives the handler the raw body and the headers of a signed delivery, and answers what it answers", async () => {
    const body = '{ "zero":  "spaces kept" }';
    const response = await post(body);
    expect([response.status, await response.text()]).toEqual([200, "ok\n"]);
    expect(seen.at(-1)?.body).toBe(body);
    expect(seen.at(-1)?.headers["x-github-event"]).toBe("issue_comment");
    expect((await post('{"fail":1}')).status).toBe(500);
  });

  it.each([
    ["another path", "/elsewhere", {}, "{}", 404],
    ["no signature", "", { "x-hub-signature-256": "" }, "{}", 401],
    ["a signature that does not match", "", { "x-hub-signature-256": signWebhook("not-the-secret", "{}") }, "{}", 401],
    ["a signature in another format", "", { "x-hub-signature-256": "sha1=0123456789abcdef0123456789abcdef01234567" }, "{}", 401],
    ["no event header", "", { "x-github-event": "" }, "{}", 400],
    ["an empty body", "", {}, "", 400],
    ["a form-encoded body", "", { "content-type": "application/x-www-form-urlencoded" }, "payload=%7B%7D", 415],
    ["a body over the limit", "", {}, `{"x":"${"x".repeat(1000)}"}`, 413],
  ])("refuses %s without calling the handler", async (_, path, headers: Record<string, string>, body, status) => {
    const before = seen.length;
    const target = path === "" ? url : new URL(path, url).href;
    const signed = { "x-hub-signature-256": signWebhook(SECRET, body), ...headers };
    const response = await fetch(target, {
      method: "POST",
      headers: { "x-github-event": "ping", "x-github-delivery": "d-2", "content-type": "application/json", ...signed },
      body,
    });
    expect(response.status).toBe(status);
    expect(response.headers.get("connection")).toBe("close");
    expect(seen.length).toBe(before);
  });

  it("keeps at most maxBufferedBytes of the bodies in flight, and answers 503 beyond", async () => {
    const port = Number(new URL(url).port);
    const body = `{"x":"${"x".repeat(850)}"}`;
    const held = openExchange({ port, head: webhookHead({ path: "/api/github/webhooks", length: body.length, signature: signWebhook(SECRET, body) }) });
    held.write(body.slice(0, 800));
    // 800 bytes held of 1500: another 858 do not fit until the first is done (once the server
    // has read those 800, which the test cannot see, so it asks until it is refused).
    const answer = async () => {
      const second = openExchange({ port, head: webhookHead({ path: "/api/github/webhooks", length: body.length, signature: signWebhook(SECRET, body) }) });
      second.write(body);
      await expect.poll(() => second.status()).not.toBeNull();
      second.close();
      return second.status();
    };
    await expect.poll(answer, { timeout: 20_000 }).toBe(503);
    held.write(body.slice(800));
    await expect.poll(() => held.status()).toBe(200);
    held.close();
    expect((await post(body)).status).toBe(200);
  });

  it("refuses other methods", async () => {
    expect((await fetch(url)).status).toBe(405);
  });

  it("reads its limits from NARUTO_WEBHOOK_* and refuses what is not a positive whole number", () => {
    expect(webhookLimitsFrom({ NARUTO_WEBHOOK_MAX_CONNECTIONS: "4", NARUTO_WEBHOOK_BODY_TIMEOUT_MS: "250" })).toEqual({
      ...DEFAULT_WEBHOOK_LIMITS,
      maxConnections: 4,
      bodyIdleTimeoutMs: 250,
    });
    expect(() => webhookLimitsFrom({ NARUTO_WEBHOOK_HEADERS_TIMEOUT_MS: "10s" })).toThrow(AppSettingsError);
  });
});
