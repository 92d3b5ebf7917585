/**
 * The App's webhook server as it runs (`npm start`: `node build/app.js`, its own process on
 * loopback), under what anyone on the internet can send it: big unsigned and wrongly signed
 * bodies, bodies and headers that never finish, more connections than it takes, and malformed
 * deliveries. Memory is measured on the App process (its peak RSS, from /proc); time is never
 * asserted, only that the server closes what it should (small timeouts come in through the
 * App's environment, the test's own timeout is the generous bound).
 *
 * Run against the server before these limits (the whole body buffered before the signature was
 * checked, Node's default timeouts, no connection cap), 12 of these 18 failed: the App's peak RSS
 * under eight 24 MiB unsigned bodies and under eight unfinished ones (each rose by about
 * 190 MB), the body over 25 MiB and the Content-Length over 25 MiB (no answer for minutes), the
 * stalled body, the stalled headers and the trickled body (held for minutes), the connection
 * cap, no signature (400), and the empty, not-JSON and not-an-object signed bodies and the
 * form-encoded body (a 500 or a 200, not a 4xx). The signed ping, the wrong and the sha1
 * signature, the missing headers and the wrong path, method and protocol passed already and stay
 * as regression cases.
 */
import { request } from "node:http";
import { readFile, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppProcess, type AppProcess } from "../e2e/support/app-process.ts";
import { signWebhook, startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";
import { example } from "../support/fake-github/payload-examples.ts";
import { openExchange, webhookHead } from "./raw-http.ts";

const SECRET = "webhook-server-test-secret";
const PATH = "/api/github/webhooks";
const MiB = 1024 * 1024;
const linux = process.platform === "linux";

let fake: FakeGitHub;
/** Default limits. */
let app: AppProcess;
/** Timeouts of half a second to a second and a half. */
let impatient: AppProcess;
/** At most four connections. */
let capped: AppProcess;

beforeAll(async () => {
  fake = await startFakeGitHub({ webhook: { secret: SECRET } });
  const env = (more: Record<string, string>) => ({
    APP_ID: String(fake.app.id),
    PRIVATE_KEY: fake.app.privateKey,
    WEBHOOK_SECRET: SECRET,
    GHE_HOST: new URL(fake.url).host,
    GHE_PROTOCOL: "http",
    APP_SLUG: fake.app.slug,
    LOG_LEVEL: "fatal",
    ...more,
  });
  [app, impatient, capped] = await Promise.all([
    startAppProcess({ env: env({}) }),
    startAppProcess({
      env: env({ NARUTO_WEBHOOK_HEADERS_TIMEOUT_MS: "500", NARUTO_WEBHOOK_BODY_TIMEOUT_MS: "500", NARUTO_WEBHOOK_REQUEST_TIMEOUT_MS: "1500" }),
    }),
    startAppProcess({ env: env({ NARUTO_WEBHOOK_MAX_CONNECTIONS: "4" }) }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([app, impatient, capped].map((a) => a?.close()));
  await fake?.close();
});

/** POSTs `body` without waiting for the server to read it; resolves with the answer's status, if any. */
function send(input: { port: number; body: Buffer; headers: Record<string, string> }): Promise<number | null> {
  return new Promise((resolve) => {
    let status: number | null = null;
    const sent = request(
      {
        host: "127.0.0.1",
        port: input.port,
        path: PATH,
        method: "POST",
        agent: false,
        headers: { "content-length": String(input.body.length), ...input.headers },
      },
      (response) => {
        status = response.statusCode ?? null;
        response.resume();
        response.on("close", () => resolve(status));
      },
    );
    // The server may answer and close before the body is out: the write fails, the answer counts.
    sent.on("error", () => resolve(status));
    sent.end(input.body);
  });
}

function deliveryHeaders(body: string | Buffer, more: Record<string, string> = {}): Record<string, string> {
  return {
    "content-type": "application/json",
    "x-github-event": "ping",
    "x-github-delivery": "d-1",
    "x-hub-signature-256": signWebhook(SECRET, body.toString()),
    ...more,
  };
}

async function status(pid: number): Promise<Record<string, number>> {
  const text = await readFile(`/proc/${pid}/status`, "utf8");
  return Object.fromEntries([...text.matchAll(/^(Vm\w+):\s+(\d+) kB$/gm)].map((m) => [m[1]!, Number(m[2]) * 1024]));
}

/** How far the App's RSS rose above where it was while `burst` ran (Linux: peak RSS reset first). */
async function peakGrowth(process: AppProcess, burst: () => Promise<unknown>): Promise<number> {
  const pid = process.pid!;
  const before = (await status(pid))["VmRSS"]!;
  // Writing 5 resets the high-water mark VmHWM to the current RSS.
  await writeFile(`/proc/${pid}/clear_refs`, "5");
  await burst();
  return (await status(pid))["VmHWM"]! - before;
}

describe("the App's webhook server under unauthenticated load", () => {
  const big = Buffer.alloc(24 * MiB, "x");

  it.runIf(linux)(
    "does not keep eight 24 MiB unsigned bodies",
    async () => {
      const headers = { "content-type": "application/json", "x-github-event": "ping", "x-github-delivery": "d-1" };
      const statuses: (number | null)[] = [];
      const growth = await peakGrowth(app, async () => {
        statuses.push(...(await Promise.all(Array.from({ length: 8 }, () => send({ port: app.port, body: big, headers })))));
      });
      expect(statuses).toEqual(Array(8).fill(401));
      expect(growth).toBeLessThan(32 * MiB);
    },
    120_000,
  );

  it.runIf(linux)(
    "keeps at most its buffer budget of eight 24 MiB bodies with well-formed signatures that are never finished",
    async () => {
      // Whether a signature matches is known only at the end of the body, so these are kept (all
      // but the last byte is sent): within the 64 MiB budget, and 503 for those that do not fit.
      const body = big.subarray(0, big.length - 1);
      const held = Array.from({ length: 8 }, () => openExchange({ port: app.port, head: webhookHead({ path: PATH, length: big.length }) }));
      const growth = await peakGrowth(app, () =>
        Promise.all(
          held.map(
            (h) =>
              new Promise<void>((resolve) => {
                h.socket.write(body, () => resolve());
                void h.closed.then(resolve);
              }),
          ),
        ),
      );
      for (const h of held) h.close();
      expect(held.some((h) => h.status() === 503)).toBe(true);
      expect(growth).toBeLessThan(64 * MiB + 64 * MiB);
    },
    120_000,
  );

  it("refuses a body over 25 MiB as it streams, and a Content-Length over 25 MiB at once", async () => {
    const streamed = openExchange({ port: app.port, head: webhookHead({ path: PATH, chunked: true }) });
    const chunk = Buffer.alloc(MiB, "x");
    for (let i = 0; i < 26 && streamed.status() === null; i++)
      streamed.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]));
    await streamed.closed;
    expect(streamed.status()).toBe(413);

    const declared = openExchange({ port: app.port, head: webhookHead({ path: PATH, length: 26 * MiB }) });
    await declared.closed;
    expect(declared.status()).toBe(413);
  }, 60_000);

  it("closes a connection whose body stalls", async () => {
    const stalled = openExchange({ port: impatient.port, head: webhookHead({ path: PATH, length: 100 }) });
    stalled.write('{"zen":');
    await stalled.closed;
    expect(stalled.status()).toBe(408);
  }, 60_000);

  it("closes a connection whose headers never end", async () => {
    const stalled = openExchange({ port: impatient.port, head: `POST ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n` });
    await stalled.closed;
    expect(stalled.status()).toBe(408);
  }, 60_000);

  it("closes a connection whose body trickles in for longer than a request may take", async () => {
    const trickled = openExchange({ port: impatient.port, head: webhookHead({ path: PATH, length: 1_000_000 }) });
    // A byte every 100 ms never stalls the body; the request as a whole runs out of time.
    const drip = setInterval(() => trickled.write(" "), 100);
    await trickled.closed;
    clearInterval(drip);
    expect(trickled.status()).toBe(408);
  }, 60_000);

  it("takes at most its cap of open connections, and takes more once they close", async () => {
    const held = Array.from({ length: 4 }, () => openExchange({ port: capped.port, head: `POST ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n` }));
    await Promise.all(held.map((h) => new Promise((resolve) => h.socket.once("connect", resolve))));
    // The kernel queues connections in order, so the server has taken the four before this one.
    const fifth = openExchange({ port: capped.port, head: `GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n` });
    await fifth.closed;
    expect(fifth.status()).toBeNull();
    for (const h of held) h.close();
    await expect
      .poll(
        async () => {
          const next = openExchange({ port: capped.port, head: `GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n` });
          await next.closed;
          return next.status();
        },
        { timeout: 30_000 },
      )
      .toBe(404);
  }, 60_000);
});

describe("the App's webhook server on malformed deliveries: 4xx, never 500", () => {
  // GitHub's own recording of a ping: the contrast case is a delivery GitHub could send.
  const ping = JSON.stringify(example("ping", null));
  const wrong = `sha256=${"0".repeat(64)}`;

  it.each([
    ["a signed ping (for contrast): taken, and handled after the answer", ping, deliveryHeaders(ping), 202],
    ["no signature", ping, deliveryHeaders(ping, { "x-hub-signature-256": "" }), 401],
    ["a signature that does not match", ping, deliveryHeaders(ping, { "x-hub-signature-256": wrong }), 401],
    ["a signature in the old sha1 format", ping, deliveryHeaders(ping, { "x-hub-signature-256": "sha1=0123456789abcdef0123456789abcdef01234567" }), 401],
    ["an empty body, signed", "", deliveryHeaders(""), 400],
    ["a body that is not JSON, signed", "{ not json", deliveryHeaders("{ not json"), 400],
    ["JSON that is not an object, signed", "[1,2]", deliveryHeaders("[1,2]"), 400],
    ["no event header", ping, deliveryHeaders(ping, { "x-github-event": "" }), 400],
    ["no delivery header", ping, deliveryHeaders(ping, { "x-github-delivery": "" }), 400],
    [
      "a form-encoded body",
      `payload=${encodeURIComponent(ping)}`,
      deliveryHeaders(`payload=${encodeURIComponent(ping)}`, { "content-type": "application/x-www-form-urlencoded" }),
      415,
    ],
  ])("%s", async (_, body, headers, expected) => {
    const headersSent = Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== ""));
    expect(await send({ port: app.port, body: Buffer.from(body), headers: headersSent })).toBe(expected);
  });

  it("answers another path 404, another method 405 and what is not HTTP 400", async () => {
    expect((await fetch(new URL("/elsewhere", app.url), { method: "POST", body: "{}" })).status).toBe(404);
    expect((await fetch(app.url)).status).toBe(405);
    const garbage = openExchange({ port: app.port, head: "HELLO\r\n\r\n" });
    await garbage.closed;
    expect(garbage.status()).toBe(400);
  });
});
