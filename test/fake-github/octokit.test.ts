/**
 * @octokit/rest 22 (what src/github uses) against the fake at its GHE base URL: encoded ref
 * slashes, pagination through Link headers, and requests that stay inside GitHub's description.
 */
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemo, type Demo } from "./helpers.ts";

let demo: Demo;
let octokit: Octokit;
const repo = { owner: "acme", repo: "demo" };

beforeAll(async () => {
  demo = await startDemo();
  const quiet = () => undefined;
  octokit = new Octokit({ auth: demo.maintainer, baseUrl: demo.github.apiUrl, log: { debug: quiet, info: quiet, warn: quiet, error: quiet } });
});
afterAll(async () => {
  demo.github.assertNoViolations();
  await demo.github.close();
});

describe("Octokit against the fake", () => {
  it("creates, reads and compare-and-swaps a ref whose name has slashes", async () => {
    await octokit.rest.git.createRef({ ...repo, ref: "refs/heads/naruto-state/m-1", sha: demo.mainSha });
    const { data: ref } = await octokit.rest.git.getRef({ ...repo, ref: "heads/naruto-state/m-1" });
    expect(ref.object.sha).toBe(demo.mainSha);
    expect(demo.github.requests.at(-1)?.path).toBe("/repos/acme/demo/git/ref/heads%2Fnaruto-state%2Fm-1");

    const { data: base } = await octokit.rest.git.getCommit({ ...repo, commit_sha: demo.mainSha });
    const { data: tree } = await octokit.rest.git.createTree({
      ...repo,
      base_tree: base.tree.sha,
      tree: [{ path: "state.json", mode: "100644", type: "blob", content: "{}" }],
    });
    const { data: commit } = await octokit.rest.git.createCommit({ ...repo, message: "state", tree: tree.sha, parents: [demo.mainSha] });
    const { data: moved } = await octokit.rest.git.updateRef({ ...repo, ref: "heads/naruto-state/m-1", sha: commit.sha, force: false });
    expect(moved.object.sha).toBe(commit.sha);
    const stale = await octokit.rest.git.updateRef({ ...repo, ref: "heads/naruto-state/m-1", sha: demo.mainSha, force: false }).catch((e: unknown) => e);
    expect(stale).toMatchObject({ status: 422, message: expect.stringContaining("Update is not a fast forward") });
  });

  it("pages through comments by following Link headers", async () => {
    for (let i = 0; i < 3; i++) await octokit.rest.issues.createComment({ ...repo, issue_number: 1, body: `n${i}` });
    const all = await octokit.paginate(octokit.rest.issues.listComments, { ...repo, issue_number: 1, per_page: 2 });
    expect(all.map((c) => c.body)).toEqual(["n0", "n1", "n2"]);
  });

  it("reads contents, permissions and dispatches with typed answers", async () => {
    const { data: content } = await octokit.rest.repos.getContent({ ...repo, path: "README.md", ref: "main" });
    expect(Array.isArray(content) ? null : content.type).toBe("file");
    const { data: permission } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username: "octo-outsider" });
    expect(permission.permission).toBe("read");
    const dispatched = await octokit.rest.actions.createWorkflowDispatch({ ...repo, workflow_id: "naruto.yml", ref: "main", inputs: { mission: "m-1" } });
    expect(dispatched.status).toBe(204);
    expect(demo.github.dispatches).toHaveLength(1);
  });
});
