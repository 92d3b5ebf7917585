/**
 * The function-host handler: the same App behind `verifyAndReceive`, with GitHub's raw body and
 * headers. A forged signature gets 401 and reaches no handler; a signed command is handled
 * before the answer (hosts freeze work left after it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { narutoApp } from "../../src/app/app.ts";
import { createHandler } from "../../src/app/serverless.ts";
import { probotFrom } from "../../src/app/settings.ts";
import { missionIdFor } from "../../src/github-driver/mission-id.ts";
import { signWebhook } from "../support/fake-github/index.ts";
import { appDepsFor, REPO, SECRET, startAppWorld, type AppWorld } from "./world.ts";

let world: AppWorld;
beforeAll(async () => {
  world = await startAppWorld();
});
afterAll(async () => world.close());

async function handler() {
  const probot = probotFrom({
    APP_ID: String(world.fake.app.id),
    PRIVATE_KEY: world.fake.app.privateKey,
    WEBHOOK_SECRET: SECRET,
    GHE_HOST: new URL(world.fake.url).host,
    GHE_PROTOCOL: "http",
    LOG_LEVEL: "fatal",
  });
  await probot.load((app) => {
    narutoApp(app, appDepsFor(world.botLogin)).close();
  });
  return createHandler(probot);
}

function request(body: string, secret: string) {
  return {
    headers: {
      "X-GitHub-Delivery": "d-1",
      "X-GitHub-Event": "issue_comment",
      "X-Hub-Signature-256": signWebhook(secret, body),
      "Content-Type": "application/json",
    },
    body,
  };
}

describe("the serverless handler", () => {
  it("answers a forged delivery 401 and does nothing", async () => {
    const commentId = await world.comment("octo-maintainer", "/naruto make a file");
    const body = JSON.stringify(world.fake.payloads.issueComment({ repo: REPO, commentId }));
    const before = world.fake.requests.length;
    expect(await (await handler())(request(body, "not-the-secret"))).toMatchObject({ status: 401 });
    expect(world.fake.requests.length).toBe(before);
  });

  it("handles a signed /naruto before it answers", async () => {
    const commentId = await world.comment("octo-maintainer", "/naruto plan make a file");
    const body = JSON.stringify(world.fake.payloads.issueComment({ repo: REPO, commentId }));
    expect(await (await handler())(request(body, SECRET))).toEqual({ status: 200, body: "ok" });
    const id = missionIdFor(REPO, commentId);
    expect((await world.store.load(id))?.mission.status).toBe("planning");
    expect(world.fake.dispatches.filter((d) => d.inputs["mission"] === id)).toHaveLength(1);
  });

  it("two replicas receiving the same delivery at once start one mission, one dispatch, one tracking comment", async () => {
    const commentId = await world.comment("octo-maintainer", "/naruto plan make two files");
    const payload = world.fake.payloads.issueComment({ repo: REPO, commentId });
    const body = JSON.stringify(payload);
    const replica = await handler();
    const [server, fn] = await Promise.all([
      world.fake.deliver({ event: "issue_comment", payload, url: world.url, secret: SECRET }),
      replica(request(body, SECRET)),
    ]);
    expect([server.status, fn.status]).toEqual([200, 200]);
    const id = missionIdFor(REPO, commentId);
    expect(world.fake.dispatches.filter((d) => d.inputs["mission"] === id)).toHaveLength(1);
    const tracking = [...world.fake.repo(REPO).comments.values()].filter((c) => c.body.startsWith(`<!-- naruto:tracking:${id} -->`));
    expect(tracking).toHaveLength(1);
  });

  it.each([
    ["no signature at all", { headers: {}, body: "{}" }, 401],
    [
      "a signed body without GitHub's event header",
      { headers: { "X-GitHub-Delivery": "d-1", "X-Hub-Signature-256": signWebhook(SECRET, "{}") }, body: "{}" },
      400,
    ],
    ["an empty body with a signature", request("", SECRET), 400],
    ["a signed body that is not JSON", request("{ not json", SECRET), 400],
    ["a signed JSON array", request("[]", SECRET), 400],
    [
      "a form-encoded body",
      { headers: { ...request("payload=%7B%7D", SECRET).headers, "Content-Type": "application/x-www-form-urlencoded" }, body: "payload=%7B%7D" },
      415,
    ],
  ])("answers %s with a 4xx, never 500", async (_, input, status) => {
    expect((await (await handler())(input)).status).toBe(status);
  });
});
