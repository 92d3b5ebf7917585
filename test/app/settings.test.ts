/**
 * The App's settings from its environment: the bot login from APP_SLUG or, without it, from
 * `GET /app` on the GitHub Enterprise Server that GHE_HOST names; the write spacing and the
 * tracking interval from naruto's variables.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appDepsFrom, probotFrom, type Env } from "../../src/app/settings.ts";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";

let fake: FakeGitHub;
let base: Env;
beforeAll(async () => {
  fake = await startFakeGitHub();
  base = {
    APP_ID: String(fake.app.id),
    PRIVATE_KEY: fake.app.privateKey,
    WEBHOOK_SECRET: "s",
    GHE_HOST: new URL(fake.url).host,
    GHE_PROTOCOL: "http",
    LOG_LEVEL: "fatal",
  };
});
afterAll(async () => fake.close());

const depsOf = (env: Env) => appDepsFrom({ ...base, ...env }, probotFrom({ ...base, ...env }));

describe("the App's settings", () => {
  it("takes the bot login from APP_SLUG without asking GitHub", async () => {
    const before = fake.requests.length;
    expect((await depsOf({ APP_SLUG: "my-naruto" })).botLogin).toBe("my-naruto[bot]");
    expect(fake.requests.length).toBe(before);
  });

  it("asks GET /app under /api/v3 for the slug when APP_SLUG is unset", async () => {
    expect((await depsOf({})).botLogin).toBe(`${fake.app.slug}[bot]`);
    expect(fake.requests.filter((r) => r.operation === "GET /app").map((r) => [r.status, r.enterprise])).toEqual([[200, true]]);
  });

  it("spaces writes as the Action does: NARUTO_GITHUB_WRITE_INTERVAL_MS, else the client's defaults", async () => {
    expect((await depsOf({ APP_SLUG: "n", NARUTO_GITHUB_WRITE_INTERVAL_MS: "0" })).client).toEqual({
      throttle: { writeIntervalMs: 0, notificationIntervalMs: 0 },
    });
    expect((await depsOf({ APP_SLUG: "n", NARUTO_GITHUB_WRITE_INTERVAL_MS: "250" })).client).toEqual({
      throttle: { writeIntervalMs: 250, notificationIntervalMs: 250 },
    });
    for (const value of [undefined, "", "-1", "soon"]) {
      expect((await depsOf({ APP_SLUG: "n", NARUTO_GITHUB_WRITE_INTERVAL_MS: value })).client).toBeUndefined();
    }
  });

  it("reads the tracking interval, 5 s unless set to a number of milliseconds", async () => {
    expect((await depsOf({ APP_SLUG: "n" })).trackingIntervalMs).toBe(5_000);
    expect((await depsOf({ APP_SLUG: "n", NARUTO_TRACKING_INTERVAL_MS: "0" })).trackingIntervalMs).toBe(0);
    expect((await depsOf({ APP_SLUG: "n", NARUTO_TRACKING_INTERVAL_MS: "never" })).trackingIntervalMs).toBe(5_000);
  });
});
