/**
 * `/naruto` on a pull request: the App reads the pull request's head (with the installation's
 * token, through the same lookup as the Action) and the mission starts from it.
 */
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missionIdFor } from "../../src/github-driver/mission-id.ts";
import { REPO, SECRET, startAppWorld, type AppWorld } from "./world.ts";

let world: AppWorld;
beforeAll(async () => {
  world = await startAppWorld();
});
afterAll(async () => world.close());

/** A branch one commit ahead of main, and a pull request from it; returns its number and head. */
async function openPullRequest(): Promise<{ number: number; sha: string }> {
  const octokit = new Octokit({ auth: world.fake.tokenFor("octo-maintainer"), baseUrl: world.fake.apiUrl });
  const repo = { owner: "acme", repo: "demo" };
  const main = (await octokit.rest.git.getRef({ ...repo, ref: "heads/main" })).data.object.sha;
  const base = (await octokit.rest.git.getCommit({ ...repo, commit_sha: main })).data.tree.sha;
  const tree = (
    await octokit.rest.git.createTree({ ...repo, base_tree: base, tree: [{ path: "feature.txt", mode: "100644", type: "blob", content: "feature\n" }] })
  ).data.sha;
  const author = { name: "Octo", email: "octo@example.com", date: "2026-01-01T00:00:00Z" };
  const sha = (await octokit.rest.git.createCommit({ ...repo, message: "feature", tree, parents: [main], author, committer: author })).data.sha;
  await octokit.rest.git.createRef({ ...repo, ref: "refs/heads/feature", sha });
  const pull = (await octokit.rest.pulls.create({ ...repo, head: "feature", base: "main", title: "Feature" })).data;
  return { number: pull.number, sha };
}

describe("the App on a pull request comment", () => {
  it("starts the mission from the pull request's head", async () => {
    const pull = await openPullRequest();
    const commentId = await world.comment("octo-maintainer", "/naruto plan tidy the feature", pull.number);
    const payload = world.fake.payloads.issueComment({ repo: REPO, commentId });
    expect((await world.fake.deliver({ event: "issue_comment", payload, url: world.url, secret: SECRET })).status).toBe(200);
    const stored = await world.store.load(missionIdFor(REPO, commentId));
    expect(stored?.mission.base).toEqual({ ref: "feature", commit: pull.sha });
    expect(stored?.mission.source).toMatchObject({ issue: pull.number });
    world.fake.assertNoViolations();
  });
});
