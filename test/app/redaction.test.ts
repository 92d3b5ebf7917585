/**
 * Issue 13, point 7, in the App: what it writes goes through the redactor with the secrets it
 * holds (its webhook secret here) and the known formats. A command whose text quotes them (a
 * maintainer pasting a log, say) leaves none of them in the tracking comment or the mission
 * document on `naruto-state/<mission>`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missionIdFor } from "../../src/github-driver/mission-id.ts";
import { testGit } from "../support/git-repo.ts";
import { LEAKY, leaksIn } from "../support/leaks.ts";
import { REPO, SECRET, startAppWorld, type AppWorld } from "./world.ts";
import { readMissionRecords } from "../../src/store/git-store.ts";

let world: AppWorld;
beforeAll(async () => {
  world = await startAppWorld();
});
afterAll(async () => world.close());

describe("the App's writes", () => {
  it("show neither the secrets it holds nor a known format, in comments or in the mission document", async () => {
    const commentId = await world.comment("octo-maintainer", `/naruto plan fix the deploy: it printed ${SECRET} and ${LEAKY.ghsClassic}`);
    const delivery = await world.fake.deliver({
      event: "issue_comment",
      payload: world.fake.payloads.issueComment({ repo: REPO, commentId }),
      url: world.url,
      secret: SECRET,
    });
    expect(delivery.status).toBe(200);
    const id = missionIdFor(REPO, commentId);
    const repo = world.fake.repo(REPO);
    const tracking = [...repo.comments.values()].find((c) => c.body.startsWith(`<!-- naruto:tracking:${id} -->`))?.body ?? "";
    // Every record of the stored version (src/mission/records.ts).
    const stored = [...(await readMissionRecords(testGit(), repo.dir, `refs/heads/naruto-state/${id}`)).values()].join("\n");
    const secrets = { webhookSecret: SECRET, ghsClassic: LEAKY.ghsClassic };
    expect({ tracking: leaksIn(tracking, secrets), stored: leaksIn(stored, secrets) }).toEqual({ tracking: [], stored: [] });
    // The secret by the port (after rendering), the token by the renderer (before escaping).
    expect(tracking).toContain("fix the deploy: it printed [redacted] and \\[redacted\\]");
  });
});
