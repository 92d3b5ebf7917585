/**
 * The App as it runs: Probot 14 built from an environment (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET,
 * GHE_HOST/GHE_PROTOCOL pointing at the fake GitHub), its real node middleware on a loopback
 * server, and deliveries signed by the fake with the webhook secret. The App authenticates as
 * the fake's app (JWT, then installation tokens), exactly as against GitHub.
 */
import { readFile } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { narutoApp } from "../../src/app/app.ts";
import type { DeliveryQueue } from "../../src/app/deliveries.ts";
import { createWebhookServer } from "../../src/app/server.ts";
import { createHandler } from "../../src/app/serverless.ts";
import type { AppDeps } from "../../src/app/deps.ts";
import { probotFrom } from "../../src/app/settings.ts";
import type { Throttle } from "../../src/app/throttle.ts";
import { createGitHub } from "../../src/github/index.ts";
import { createGitHubMissionStore } from "../../src/store/index.ts";
import type { MissionStore } from "../../src/mission/store.ts";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";

export const REPO = "acme/demo";
export const SECRET = "webhook-secret-for-tests";
const TEMPLATE = new URL("../../templates/naruto.yml", import.meta.url);
const FAST = { retry: { retries: 2, baseDelayMs: 5 }, throttle: { writeIntervalMs: 0, notificationIntervalMs: 0 }, sleep: () => Promise.resolve() } as const;

/** The App's settings for tests: no write spacing, fast retries, no tracking throttle by default. */
export function appDepsFor(botLogin: string, trackingIntervalMs = 0): AppDeps {
  return {
    botLogin,
    configPath: ".github/naruto.yml",
    workflow: "naruto.yml",
    workflowName: "naruto",
    now: () => new Date(),
    userAgent: "naruto-app-tests",
    trackingIntervalMs,
    secrets: [SECRET],
    client: FAST,
  };
}

export interface AppWorld {
  readonly fake: FakeGitHub;
  /** Where the App listens for webhooks. */
  readonly url: string;
  readonly botLogin: string;
  /** The mission store as a reader with its own token sees it. */
  readonly store: MissionStore;
  /** Posts a comment as `user` (a login with a token in the fake) and returns its id. */
  comment(user: string, body: string, issue?: number): Promise<number>;
  /** Posts a comment with a token (an app's bot, say). */
  commentWith(token: string, body: string, issue?: number): Promise<number>;
  close(): Promise<void>;
}

export async function startAppWorld(input: { config?: string; trackingIntervalMs?: number; queue?: DeliveryQueue } = {}): Promise<AppWorld> {
  const fake = await startFakeGitHub({ webhook: { secret: SECRET } });
  await fake.createRepo({
    owner: "acme",
    name: "demo",
    files: {
      "README.md": "# demo\n",
      ".github/workflows/naruto.yml": await readFile(TEMPLATE, "utf8"),
      ".github/naruto.yml": input.config ?? "limits:\n  max_attempts: 2\n",
    },
    issues: [{ title: "Validate input" }],
  });
  fake.addUser("octo-maintainer", { permission: "write" });
  fake.addUser("octo-outsider", { permission: "read" });

  const host = new URL(fake.url).host;
  const probot = probotFrom({
    APP_ID: String(fake.app.id),
    PRIVATE_KEY: fake.app.privateKey,
    WEBHOOK_SECRET: SECRET,
    GHE_HOST: host,
    GHE_PROTOCOL: "http",
    LOG_LEVEL: process.env["TEST_LOG"] ?? "fatal",
  });
  const botLogin = `${fake.app.slug}[bot]`;
  const deps = appDepsFor(botLogin, input.trackingIntervalMs ?? 0);
  let throttle: Throttle | null = null;
  // What `npm start` serves (src/app/main.ts): the webhook listener on Probot's verification;
  // with a queue, deliveries are answered 202 at once and handled after, as there.
  await probot.load((app) => {
    throttle = narutoApp(app, deps);
  });
  const server: Server = createWebhookServer({
    handler: createHandler(probot, input.queue ? { queue: input.queue } : {}),
    path: "/api/github/webhooks",
    secret: SECRET,
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`;

  const reader = createGitHub({
    token: fake.issueAppToken({ owner: "acme" }).token,
    repo: { owner: "acme", repo: "demo" },
    baseUrl: fake.url,
    userAgent: "naruto-tests",
    ...FAST,
  });
  const commentWith = async (token: string, body: string, issue = 1) => {
    const response = await fetch(`${fake.url}/repos/${REPO}/issues/${issue}/comments`, {
      method: "POST",
      headers: { authorization: `token ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ body }),
    });
    if (response.status !== 201) throw new Error(`the fake refused the comment: ${response.status}`);
    return ((await response.json()) as { id: number }).id;
  };
  return {
    fake,
    url,
    botLogin,
    store: createGitHubMissionStore({ github: reader }),
    comment: (user, body, issue) => commentWith(fake.tokenFor(user), body, issue),
    commentWith,
    async close() {
      (throttle as Throttle | null)?.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fake.close();
    },
  };
}
