/**
 * `/naruto` on a pull request that adds a workflow file, with the App holding exactly app.yml's
 * permissions (no `workflows`): GitHub refuses the queue branch at the pull request's head. The
 * App answers the delivery 2xx, replies once saying what happened, that it is by design and how
 * to go on, and leaves no branch, no mission state and no run behind; a redelivery changes none
 * of that.
 */
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markerFor } from "../../src/github/marker.ts";
import { missionIdFor } from "../../src/github-driver/mission-id.ts";
import { REPO, SECRET, startAppWorld, type AppWorld } from "./world.ts";

let world: AppWorld;
beforeAll(async () => {
  world = await startAppWorld();
});
afterAll(async () => world.close());

/** A pull request from a branch one commit ahead of main holding `files`, made by the maintainer. */
async function openPullRequest(branch: string, files: Record<string, string>): Promise<number> {
  const octokit = new Octokit({ auth: world.fake.tokenFor("octo-maintainer"), baseUrl: world.fake.apiUrl });
  const repo = { owner: "acme", repo: "demo" };
  const main = (await octokit.rest.git.getRef({ ...repo, ref: "heads/main" })).data.object.sha;
  const base = (await octokit.rest.git.getCommit({ ...repo, commit_sha: main })).data.tree.sha;
  const tree = (
    await octokit.rest.git.createTree({
      ...repo,
      base_tree: base,
      tree: Object.entries(files).map(([path, content]) => ({ path, mode: "100644" as const, type: "blob" as const, content })),
    })
  ).data.sha;
  const sha = (await octokit.rest.git.createCommit({ ...repo, message: branch, tree, parents: [main] })).data.sha;
  await octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha });
  return (await octokit.rest.pulls.create({ ...repo, head: branch, base: "main", title: branch })).data.number;
}

const refs = async () => {
  const octokit = new Octokit({ auth: world.fake.tokenFor("octo-maintainer"), baseUrl: world.fake.apiUrl });
  return (await octokit.rest.git.listMatchingRefs({ owner: "acme", repo: "demo", ref: "heads/" })).data.map((r) => r.ref).sort();
};

describe("the App on a pull request that changes a workflow file", () => {
  it("replies once why it cannot start and how to go on, and leaves nothing behind", async () => {
    const pull = await openPullRequest("ci-change", { ".github/workflows/x.yml": "on: push\njobs: {}\n", "src/a.ts": "export const a = 1;\n" });
    const before = await refs();
    const commentId = await world.comment("octo-maintainer", "/naruto plan add tests for src/a.ts", pull);
    const payload = world.fake.payloads.issueComment({ repo: REPO, commentId });
    const delivery = await world.fake.deliver({ event: "issue_comment", payload, url: world.url, secret: SECRET });
    expect(delivery.status).toBe(200);
    // GitHub did refuse the queue branch: this is the case the reply is about.
    expect(world.fake.requests.some((r) => r.operation === "POST /repos/{owner}/{repo}/git/refs" && r.status === 403)).toBe(true);

    const replies = () => [...world.fake.repo(REPO).comments.values()].filter((c) => c.user.login === world.botLogin);
    expect(replies()).toHaveLength(1);
    const body = replies()[0]?.body ?? "";
    expect(body).toContain(markerFor(`reply:${commentId}`));
    expect(body).toContain("`.github/workflows/x.yml`");
    expect(body).toContain("no `workflows` permission");
    expect(body).toContain("by design");
    expect(body).toContain("Nothing was left behind");
    expect(await refs()).toEqual(before);
    expect(await world.store.load(missionIdFor(REPO, commentId))).toBeNull();
    expect(world.fake.dispatches).toEqual([]);

    const again = await world.fake.redeliver(delivery.id);
    expect(again.status).toBe(200);
    expect(replies()).toHaveLength(1);
    expect(await refs()).toEqual(before);
    world.fake.assertNoViolations();
  });

  it("says the same when the pull request only lags behind the default branch's workflows", async () => {
    const pull = await openPullRequest("stale-docs", { "docs/usage.md": "# Usage\n" });
    // The default branch gains a workflow after the pull request's branch was made.
    const octokit = new Octokit({ auth: world.fake.tokenFor("octo-maintainer"), baseUrl: world.fake.apiUrl });
    const repo = { owner: "acme", repo: "demo" };
    const main = (await octokit.rest.git.getRef({ ...repo, ref: "heads/main" })).data.object.sha;
    const base = (await octokit.rest.git.getCommit({ ...repo, commit_sha: main })).data.tree.sha;
    const tree = (
      await octokit.rest.git.createTree({
        ...repo,
        base_tree: base,
        tree: [{ path: ".github/workflows/lint.yml", mode: "100644", type: "blob", content: "on: push\njobs: {}\n" }],
      })
    ).data.sha;
    const next = (await octokit.rest.git.createCommit({ ...repo, message: "lint in CI", tree, parents: [main] })).data.sha;
    await octokit.rest.git.updateRef({ ...repo, ref: "heads/main", sha: next });
    const before = await refs();

    const commentId = await world.comment("octo-maintainer", "/naruto plan proofread the docs", pull);
    const payload = world.fake.payloads.issueComment({ repo: REPO, commentId });
    expect((await world.fake.deliver({ event: "issue_comment", payload, url: world.url, secret: SECRET })).status).toBe(200);
    const replies = [...world.fake.repo(REPO).comments.values()].filter(
      (c) => c.user.login === world.botLogin && c.body.includes(markerFor(`reply:${commentId}`)),
    );
    expect(replies).toHaveLength(1);
    expect(replies[0]?.body).toContain("`.github/workflows/lint.yml`");
    expect(replies[0]?.body).toContain("update the branch if it lags behind the default branch");
    expect(await refs()).toEqual(before);
    expect(await world.store.load(missionIdFor(REPO, commentId))).toBeNull();
    world.fake.assertNoViolations();
  });
});
