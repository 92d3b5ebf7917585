/**
 * The App through Probot's real middleware, with signed deliveries from the fake GitHub (payloads
 * built on @octokit/webhooks-examples) and the fake as the API: a maintainer's `/naruto` becomes a
 * mission, 👀, a tracking comment and one plan dispatch; forged, edited, outsider, bot and
 * redelivered requests change nothing they must not.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missionIdFor } from "../../src/github-driver/mission-id.ts";
import { REPO, SECRET, startAppWorld, type AppWorld } from "./world.ts";

let world: AppWorld;
beforeAll(async () => {
  world = await startAppWorld();
});
afterAll(async () => world.close());

const PLAN = "version: 1\ntitle: Two files\nitems:\n  - id: alpha\n    writes: [src/alpha.ts]\n    prompt: |\n      create src/alpha.ts\n";

function deliverComment(commentId: number, input: { action?: "created" | "edited"; secret?: string } = {}) {
  const payload = world.fake.payloads.issueComment({ repo: REPO, commentId, ...(input.action ? { action: input.action } : {}) });
  return world.fake.deliver({ event: "issue_comment", payload, url: world.url, secret: input.secret ?? SECRET });
}

const comments = () => [...world.fake.repo(REPO).comments.values()];
const dispatchesOf = (mission: string) => world.fake.dispatches.filter((d) => d.inputs["mission"] === mission);
const writes = () => world.fake.requests.filter((r) => r.method !== "GET").length;

describe("the App on issue_comment", () => {
  it("turns a maintainer's /naruto into a mission, 👀, a tracking comment and one plan dispatch; a redelivery repeats nothing", async () => {
    const commentId = await world.comment("octo-maintainer", `/naruto make a file\n\n\`\`\`naruto\n${PLAN}\`\`\``);
    const delivery = await deliverComment(commentId);
    expect(delivery.status).toBe(200);

    const id = missionIdFor(REPO, commentId);
    const stored = await world.store.load(id);
    expect(stored?.mission).toMatchObject({
      status: "planning",
      task: "make a file",
      plan_text: PLAN.trimEnd(),
      source: { kind: "github", repo: REPO, issue: 1, comment_id: commentId, actor: "octo-maintainer" },
    });
    expect(dispatchesOf(id).map((d) => [d.ref, d.inputs["phase"]])).toEqual([["main", "plan"]]);
    const tracking = comments().filter((c) => c.body.startsWith(`<!-- naruto:tracking:${id} -->`));
    expect(tracking.map((c) => c.user.login)).toEqual([world.botLogin]);
    expect(world.fake.repo(REPO).reactions.some((r) => r.content === "eyes" && r.subject.kind === "comment" && r.subject.id === commentId)).toBe(true);
    // The App authenticated as an app would: a JWT for the installation, then its token.
    expect(world.fake.requests.some((r) => r.operation === "POST /app/installations/{installation_id}/access_tokens" && r.status === 201)).toBe(true);

    const again = await world.fake.redeliver(delivery.id);
    expect(again.status).toBe(200);
    expect(dispatchesOf(id)).toHaveLength(1);
    expect(comments().filter((c) => c.body.startsWith(`<!-- naruto:tracking:${id} -->`))).toHaveLength(1);
    expect((await world.store.load(id))?.version).toBe(stored?.version);
    world.fake.assertNoViolations();
  });

  it("answers a forged delivery (wrong signature) 401 and does nothing", async () => {
    const commentId = await world.comment("octo-maintainer", "/naruto make a file");
    const before = world.fake.requests.length;
    const delivery = await deliverComment(commentId, { secret: "not-the-secret" });
    expect(delivery.status).toBe(401);
    expect(world.fake.requests.length).toBe(before);
    expect(await world.store.load(missionIdFor(REPO, commentId))).toBeNull();
  });

  it("does nothing for an edited comment", async () => {
    const commentId = await world.comment("octo-maintainer", "/naruto make a file");
    const before = world.fake.requests.length;
    const delivery = await deliverComment(commentId, { action: "edited" });
    expect(delivery.status).toBe(200);
    expect(world.fake.requests.length).toBe(before);
  });

  it("ignores its own comments without a word", async () => {
    const { token } = world.fake.issueAppToken({ owner: "acme" });
    const commentId = await world.commentWith(token, "/naruto status");
    expect(world.fake.repo(REPO).comments.get(commentId)?.user.login).toBe(world.botLogin);
    const before = writes();
    expect((await deliverComment(commentId)).status).toBe(200);
    expect(writes()).toBe(before);
  });

  it("answers an outsider once, politely, and changes nothing else (also when redelivered)", async () => {
    const dispatches = world.fake.dispatches.length;
    const commentId = await world.comment("octo-outsider", "/naruto delete everything");
    const delivery = await deliverComment(commentId);
    await world.fake.redeliver(delivery.id);
    const replies = comments().filter((c) => c.body.startsWith(`<!-- naruto:reply:${commentId} -->`));
    expect(replies).toHaveLength(1);
    expect(replies[0]?.user.login).toBe(world.botLogin);
    expect(replies[0]?.body).toContain("Sorry, naruto did not start");
    expect(world.fake.dispatches.length).toBe(dispatches);
    expect(await world.store.load(missionIdFor(REPO, commentId))).toBeNull();
  });

  it("refuses a bot that allow_bots does not list, even with write access", async () => {
    const dispatches = world.fake.dispatches.length;
    const { token } = world.fake.issueAppToken({ owner: "acme", bot: "helper-bot[bot]" });
    const commentId = await world.commentWith(token, "/naruto make a file");
    expect((await deliverComment(commentId)).status).toBe(200);
    const replies = comments().filter((c) => c.body.startsWith(`<!-- naruto:reply:${commentId} -->`));
    expect(replies.map((c) => c.body.includes("not listed in `allow_bots`"))).toEqual([true]);
    expect(world.fake.dispatches.length).toBe(dispatches);
    expect(await world.store.load(missionIdFor(REPO, commentId))).toBeNull();
    world.fake.assertNoViolations();
  });
});
