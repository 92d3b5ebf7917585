/** Pull requests between branches, and check runs, with GitHub's validation answers. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, field, startDemo, type Demo } from "./helpers.ts";

let demo: Demo;
let call: ReturnType<typeof api>;
let bot: ReturnType<typeof api>;
let featureSha: string;

beforeAll(async () => {
  demo = await startDemo();
  call = api(demo.github, demo.maintainer);
  bot = api(demo.github, demo.github.issueAppToken({ owner: "acme" }).token);
  const base = await call("GET", `/repos/acme/demo/git/commits/${demo.mainSha}`);
  const tree = await call("POST", "/repos/acme/demo/git/trees", {
    base_tree: field(base.body, "tree", "sha"),
    tree: [{ path: "src/b.ts", mode: "100644", type: "blob", content: "export const b = 1;\n" }],
  });
  const commit = await call("POST", "/repos/acme/demo/git/commits", { message: "add b", tree: field(tree.body, "sha"), parents: [demo.mainSha] });
  featureSha = String(field(commit.body, "sha"));
  await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/naruto/m-1", sha: featureSha });
  await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/empty", sha: demo.mainSha });
});
afterAll(async () => {
  demo.github.assertNoViolations();
  await demo.github.close();
});

describe("pull requests", () => {
  let number: number;

  it("opens one from a branch with commits, numbered after the issues", async () => {
    const created = await call("POST", "/repos/acme/demo/pulls", { title: "naruto m-1", head: "naruto/m-1", base: "main", body: "queue" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      number: 2,
      state: "open",
      head: { ref: "naruto/m-1", sha: featureSha, label: "acme:naruto/m-1" },
      base: { ref: "main", sha: demo.mainSha },
      merged: false,
    });
    number = Number(field(created.body, "number"));
    const asIssue = await call("GET", `/repos/acme/demo/issues/${number}`);
    expect(field(asIssue.body, "pull_request", "url")).toBe(`${demo.github.apiUrl}/repos/acme/demo/pulls/${number}`);
  });

  it("refuses a second one for the same head and base, and one without commits", async () => {
    const again = await call("POST", "/repos/acme/demo/pulls", { title: "again", head: "acme:naruto/m-1", base: "main" });
    expect(again.status).toBe(422);
    expect(field(again.body, "errors", 0, "message")).toBe("A pull request already exists for acme:naruto/m-1.");
    const empty = await call("POST", "/repos/acme/demo/pulls", { title: "empty", head: "empty", base: "main" });
    expect(field(empty.body, "errors", 0, "message")).toBe("No commits between main and empty");
    const noBase = await call("POST", "/repos/acme/demo/pulls", { title: "x", head: "naruto/m-1", base: "nope" });
    expect(field(noBase.body, "errors", 0)).toMatchObject({ field: "base", code: "invalid" });
  });

  it("lets only one of several concurrent creates for the same branches succeed", async () => {
    const tree = await call("POST", "/repos/acme/demo/git/trees", { tree: [{ path: "race.txt", mode: "100644", type: "blob", content: "r" }] });
    const commit = await call("POST", "/repos/acme/demo/git/commits", { message: "race", tree: field(tree.body, "sha"), parents: [demo.mainSha] });
    await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/race", sha: field(commit.body, "sha") });
    const answers = await Promise.all(Array.from({ length: 5 }, () => call("POST", "/repos/acme/demo/pulls", { title: "race", head: "race", base: "main" })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 422, 422, 422, 422]);
    const winner = answers.find((a) => a.status === 201);
    await call("PATCH", `/repos/acme/demo/pulls/${String(field(winner?.body, "number"))}`, { state: "closed" });
  });

  it("filters by head only in the owner:branch form, as GitHub does", async () => {
    const byHead = await call("GET", "/repos/acme/demo/pulls?head=acme:naruto/m-1&state=open");
    expect((byHead.body as unknown[]).map((p) => field(p, "number"))).toEqual([number]);
    expect(await call("GET", "/repos/acme/demo/pulls?head=acme:other").then((a) => a.body)).toEqual([]);
    // A bare branch name is ignored, so every pull request comes back.
    expect(await call("GET", "/repos/acme/demo/pulls?head=other").then((a) => (a.body as unknown[]).length)).toBe(1);
  });

  it("follows the head branch, lists files, and closes", async () => {
    const files = await call("GET", `/repos/acme/demo/pulls/${number}/files`);
    expect(files.body).toEqual([expect.objectContaining({ filename: "src/b.ts", status: "added", additions: 1 })]);
    const updated = await call("PATCH", `/repos/acme/demo/pulls/${number}`, { title: "renamed", state: "closed" });
    expect(updated.body).toMatchObject({ title: "renamed", state: "closed" });
    expect(await call("GET", "/repos/acme/demo/pulls?state=open").then((a) => a.body)).toEqual([]);
    expect(await call("GET", "/repos/acme/demo/pulls?state=closed&head=acme:naruto/m-1").then((a) => (a.body as unknown[]).length)).toBe(1);
  });
});

describe("check runs", () => {
  it("are created and updated by an app, and listed by ref", async () => {
    const created = await bot("POST", "/repos/acme/demo/check-runs", {
      name: "naruto/arbiter",
      head_sha: featureSha,
      status: "in_progress",
      external_id: "m-1",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "naruto/arbiter", head_sha: featureSha, status: "in_progress", conclusion: null, app: { slug: "naruto" } });
    const id = Number(field(created.body, "id"));
    const done = await bot("PATCH", `/repos/acme/demo/check-runs/${id}`, { conclusion: "success", output: { title: "approve", summary: "ok" } });
    expect(done.body).toMatchObject({ status: "completed", conclusion: "success", output: { title: "approve", summary: "ok" } });
    const listed = await bot("GET", `/repos/acme/demo/commits/${featureSha}/check-runs?check_name=naruto%2Farbiter&filter=all`);
    expect(listed.body).toMatchObject({ total_count: 1, check_runs: [{ id, external_id: "m-1" }] });
  });

  it("cannot be created with a personal token, or for an unknown commit", async () => {
    expect((await call("POST", "/repos/acme/demo/check-runs", { name: "x", head_sha: featureSha })).status).toBe(403);
    expect((await bot("POST", "/repos/acme/demo/check-runs", { name: "x", head_sha: "1".repeat(40) })).status).toBe(422);
  });

  it("refuses a summary over 65,535 characters (and records it: the client should have truncated)", async () => {
    const answer = await bot("POST", "/repos/acme/demo/check-runs", { name: "big", head_sha: featureSha, output: { title: "t", summary: "x".repeat(65_536) } });
    expect(answer.status).toBe(422);
    expect(demo.github.violations.splice(0)).toEqual([
      expect.objectContaining({ problems: [expect.stringContaining("body.output.summary: longer than 65535")] }),
    ]);
  });
});
