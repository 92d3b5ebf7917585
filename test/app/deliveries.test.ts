/**
 * Deliveries answered at once (src/app/deliveries.ts): `npm start` answers a verified delivery
 * 202 before handling it, handles each delivery id once, and runs a failed one again when it is
 * redelivered. The installation token is asked of Probot once per installation, not per request.
 */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeliveryQueue, type DeliveryQueue } from "../../src/app/deliveries.ts";
import { createTokenCache, TOKEN_FRESH_MS } from "../../src/app/installation.ts";
import { createWebhookServer } from "../../src/app/server.ts";
import { missionIdFor } from "../../src/github-driver/mission-id.ts";
import { REPO, SECRET, startAppWorld, type AppWorld } from "./world.ts";

describe("the delivery queue", () => {
  it("handles a delivery id once while it runs and after it succeeded, and again after it failed", async () => {
    const errors: string[] = [];
    const queue = createDeliveryQueue({ onError: (id, error) => errors.push(`${id}: ${(error as Error).message}`) });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const slow = async () => {
      runs += 1;
      await gate;
    };
    expect(queue.take("a", slow)).toBe("accepted");
    expect(queue.take("a", slow)).toBe("duplicate");
    expect(queue.inFlight()).toBe(1);
    expect(await queue.drained(10)).toBe(false);
    release();
    expect(await queue.drained()).toBe(true);
    expect(queue.take("a", slow)).toBe("duplicate");
    expect(runs).toBe(1);

    expect(queue.take("b", () => Promise.reject(new Error("GitHub was down")))).toBe("accepted");
    await queue.drained();
    expect(errors).toEqual(["b: GitHub was down"]);
    expect(queue.take("b", () => Promise.resolve())).toBe("accepted");
    await queue.drained();
    expect(errors).toHaveLength(1);
  });

  it("handles at most `concurrency` deliveries at once, and starts none before the answer is out", async () => {
    const queue = createDeliveryQueue({ onError: () => undefined, concurrency: 2 });
    let running = 0;
    let most = 0;
    let started = 0;
    const handle = async () => {
      started += 1;
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
    };
    for (let i = 0; i < 5; i++) queue.take(`d${i}`, handle);
    // Taken, not started: the caller answers first.
    expect(started).toBe(0);
    expect(queue.inFlight()).toBe(5);
    await queue.drained();
    expect([started, most]).toEqual([5, 2]);
  });

  it("forgets the oldest ids past what it remembers", async () => {
    const queue = createDeliveryQueue({ onError: () => undefined, remember: 2 });
    for (const id of ["a", "b", "c"]) queue.take(id, () => Promise.resolve());
    await queue.drained();
    expect(queue.take("c", () => Promise.resolve())).toBe("duplicate");
    expect(queue.take("a", () => Promise.resolve())).toBe("accepted");
  });
});

describe("the installation token cache", () => {
  it("asks once per installation while the token is fresh, and again after", async () => {
    let now = 0;
    const cache = createTokenCache(() => now);
    let minted = 0;
    const probe = () => Promise.resolve(`ghs_${++minted}`);
    expect(await cache(1, probe)).toBe("ghs_1");
    expect(await cache(1, probe)).toBe("ghs_1");
    expect(await cache(2, probe)).toBe("ghs_2");
    now = TOKEN_FRESH_MS - 1;
    expect(await cache(1, probe)).toBe("ghs_1");
    now = TOKEN_FRESH_MS;
    expect(await cache(1, probe)).toBe("ghs_3");
    expect(minted).toBe(3);
  });

  it("keeps when a token was first seen when Probot hands out the same one again", async () => {
    let now = 0;
    const cache = createTokenCache(() => now);
    let asked = 0;
    const same = () => {
      asked += 1;
      return Promise.resolve("ghs_same");
    };
    await cache(1, same);
    now = TOKEN_FRESH_MS;
    await cache(1, same);
    now = TOKEN_FRESH_MS + 1;
    // Still past its freshness: asked again, not trusted for another 50 minutes.
    await cache(1, same);
    expect(asked).toBe(3);
  });
});

describe("the App answering first", () => {
  let world: AppWorld;
  let queue: DeliveryQueue;
  beforeAll(async () => {
    queue = createDeliveryQueue({ onError: (id, error) => console.error(`delivery ${id}`, error) });
    world = await startAppWorld({ queue });
  });
  afterAll(async () => world.close());

  it("answers 202 before the command's work, does the work after, and a redelivery of the same id nothing", async () => {
    const commentId = await world.comment("octo-maintainer", "/naruto plan make a file");
    const payload = world.fake.payloads.issueComment({ repo: REPO, commentId });
    const before = world.fake.requests.length;
    const delivery = await world.fake.deliver({ event: "issue_comment", payload, url: world.url, secret: SECRET });
    expect(delivery.status).toBe(202);
    expect(queue.inFlight()).toBe(1);
    await queue.drained();
    const id = missionIdFor(REPO, commentId);
    expect((await world.store.load(id))?.mission.status).toBe("planning");
    const made = world.fake.requests.length;
    expect(made).toBeGreaterThan(before);

    const again = await world.fake.redeliver(delivery.id);
    expect(again.status).toBe(202);
    expect(again.body).toContain("already taken");
    await queue.drained();
    expect(world.fake.requests.length).toBe(made);
    world.fake.assertNoViolations();
  });

  it("refuses a forged delivery before taking it", async () => {
    const commentId = await world.comment("octo-maintainer", "/naruto plan another");
    const payload = world.fake.payloads.issueComment({ repo: REPO, commentId });
    const forged = await world.fake.deliver({ event: "issue_comment", payload, url: world.url, secret: "not-the-secret" });
    expect(forged.status).toBe(401);
    expect(queue.inFlight()).toBe(0);
    expect(await world.store.load(missionIdFor(REPO, commentId))).toBeNull();
  });
});

describe("GET /healthz", () => {
  it("says how many deliveries are in flight, and is not there without a health function", async () => {
    const handler = () => Promise.resolve({ status: 200, body: "ok" });
    const serve = async (health?: () => Record<string, unknown>) => {
      const server = createWebhookServer({ handler, path: "/api/github/webhooks", secret: SECRET, ...(health ? { health } : {}) });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.address() as AddressInfo;
      try {
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        return { status: response.status, body: await response.text() };
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    };
    expect(await serve(() => ({ status: "ok", in_flight: 3 }))).toEqual({ status: 200, body: '{"status":"ok","in_flight":3}\n' });
    expect((await serve()).status).toBe(404);
  });
});
