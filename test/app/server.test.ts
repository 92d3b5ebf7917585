/** The webhook listener of `npm start`: the raw body and headers to the handler, its answer back; the rest refused. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookListener } from "../../src/app/server.ts";
import type { FunctionRequest } from "../../src/app/serverless.ts";

const seen: FunctionRequest[] = [];
let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer(
    webhookListener(
      async (request) => {
        seen.push(request);
        return request.body.includes("fail") ? { status: 500, body: "failed" } : { status: 401, body: "signature does not match" };
      },
      { path: "/api/github/webhooks", maxBytes: 1000 },
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("webhookListener", () => {
  it("gives the handler the raw body and the headers, and answers what it answers", async () => {
    const body = '{ "zero":  "spaces kept" }';
    const response = await fetch(`${base}/api/github/webhooks`, { method: "POST", headers: { "X-GitHub-Event": "issue_comment", "x-hub-signature-256": "sha256=00" }, body });
    expect(response.status).toBe(401);
    expect(await response.text()).toBe("signature does not match\n");
    expect(seen.at(-1)?.body).toBe(body);
    expect(seen.at(-1)?.headers["x-github-event"]).toBe("issue_comment");
    expect((await fetch(`${base}/api/github/webhooks`, { method: "POST", body: "fail" })).status).toBe(500);
  });

  it("refuses other paths, other methods and bodies larger than GitHub sends, without calling the handler", async () => {
    const before = seen.length;
    expect((await fetch(`${base}/elsewhere`, { method: "POST", body: "{}" })).status).toBe(404);
    expect((await fetch(`${base}/api/github/webhooks`)).status).toBe(405);
    expect((await fetch(`${base}/api/github/webhooks`, { method: "POST", body: "x".repeat(1001) })).status).toBe(413);
    expect(seen.length).toBe(before);
  });
});
