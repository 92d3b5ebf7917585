/**
 * A webhook whose installation token cannot be had: the installation named by the delivery is
 * gone, so GitHub answers the App's token request 404. That answer is about the token, not the
 * repository: the App must not read it as "no config" or "no permission" (and reply "you lack
 * permission" to a maintainer). It logs why and answers the delivery 2xx, writing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missionIdFor } from "../../src/github-driver/mission-id.ts";
import { REPO, SECRET, startAppWorld, type AppWorld } from "./world.ts";

let world: AppWorld;
beforeAll(async () => {
  world = await startAppWorld();
});
afterAll(async () => world.close());

const TOKENS = "POST /app/installations/{installation_id}/access_tokens";

describe("the App when its installation token request fails", () => {
  it("answers 2xx for an installation that was removed, and neither replies nor writes", async () => {
    const commentId = await world.comment("octo-maintainer", "/naruto make a file");
    const payload = world.fake.payloads.issueComment({ repo: REPO, commentId });
    // The installation the event names no longer exists (uninstalled since the event).
    const removed = { ...payload, installation: { ...(payload["installation"] as Record<string, unknown>), id: 424_242 } };
    const before = world.fake.requests.length;
    const delivery = await world.fake.deliver({ event: "issue_comment", payload: removed, url: world.url, secret: SECRET });
    expect(delivery.status).toBe(200);

    const made = world.fake.requests.slice(before);
    expect(made.filter((r) => r.operation === TOKENS).map((r) => r.status)).toEqual([404]);
    // Nothing was sent without a token, and so nothing was written or refused.
    expect(made.filter((r) => r.operation !== TOKENS)).toEqual([]);
    expect([...world.fake.repo(REPO).comments.values()].filter((c) => c.user.login === world.botLogin)).toEqual([]);
    expect(world.fake.repo(REPO).reactions).toEqual([]);
    expect(await world.store.load(missionIdFor(REPO, commentId))).toBeNull();
    world.fake.assertNoViolations();
  });
});
