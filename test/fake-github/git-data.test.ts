/**
 * The Git Data API on real bare repositories: blobs, trees, commits, refs (with Octokit's
 * encoded slashes), the compare-and-swap ref update under concurrency, and compare.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, field, startDemo, type Demo } from "./helpers.ts";

let demo: Demo;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  demo = await startDemo();
  call = api(demo.github, demo.maintainer);
});
afterAll(async () => {
  demo.github.assertNoViolations();
  await demo.github.close();
});

/** A commit on top of `parent` that sets `path` to `content`, through the REST API. */
async function commitOn(parent: string, path: string, content: string): Promise<string> {
  const base = await call("GET", `/repos/acme/demo/git/commits/${parent}`);
  const tree = await call("POST", "/repos/acme/demo/git/trees", {
    base_tree: field(base.body, "tree", "sha"),
    tree: [{ path, mode: "100644", type: "blob", content }],
  });
  expect(tree.status).toBe(201);
  const commit = await call("POST", "/repos/acme/demo/git/commits", { message: `set ${path}`, tree: field(tree.body, "sha"), parents: [parent] });
  expect(commit.status).toBe(201);
  return String(field(commit.body, "sha"));
}

describe("Git Data API", () => {
  it("round-trips blobs in utf-8 and base64", async () => {
    const created = await call("POST", "/repos/acme/demo/git/blobs", { content: Buffer.from([0, 1, 2, 255]).toString("base64"), encoding: "base64" });
    expect(created.status).toBe(201);
    const read = await call("GET", `/repos/acme/demo/git/blobs/${String(field(created.body, "sha"))}`);
    expect(read.status).toBe(200);
    expect(field(read.body, "encoding")).toBe("base64");
    expect([...Buffer.from(String(field(read.body, "content")), "base64")]).toEqual([0, 1, 2, 255]);
    expect(field(read.body, "size")).toBe(4);
  });

  it("builds trees from a base tree, deletes with sha null, and lists them recursively for any `recursive` value", async () => {
    const base = await call("GET", `/repos/acme/demo/git/commits/${demo.mainSha}`);
    const tree = await call("POST", "/repos/acme/demo/git/trees", {
      base_tree: field(base.body, "tree", "sha"),
      tree: [
        { path: "docs/guide.md", mode: "100644", type: "blob", content: "# guide\n" },
        { path: "README.md", mode: "100644", type: "blob", sha: null },
      ],
    });
    expect(tree.status).toBe(201);
    const listed = await call("GET", `/repos/acme/demo/git/trees/${String(field(tree.body, "sha"))}?recursive=false`);
    const paths = (field(listed.body, "tree") as { path: string }[]).map((e) => e.path);
    expect(paths).toContain("docs/guide.md");
    expect(paths).toContain("src/a.ts");
    expect(paths).not.toContain("README.md");
  });

  it("writes commits with the given author and reads them back", async () => {
    const base = await call("GET", `/repos/acme/demo/git/commits/${demo.mainSha}`);
    const author = { name: "Ada", email: "ada@example.test", date: "2026-02-03T04:05:06Z" };
    const commit = await call("POST", "/repos/acme/demo/git/commits", {
      message: "exact message",
      tree: field(base.body, "tree", "sha"),
      parents: [demo.mainSha],
      author,
    });
    const read = await call("GET", `/repos/acme/demo/git/commits/${String(field(commit.body, "sha"))}`);
    expect(field(read.body, "message")).toBe("exact message");
    expect(field(read.body, "author")).toEqual(author);
    expect(field(read.body, "parents", 0, "sha")).toBe(demo.mainSha);
    const missing = await call("POST", "/repos/acme/demo/git/commits", { message: "x", tree: "0".repeat(40), parents: [] });
    expect(missing.status).toBe(422);
  });

  it("creates, reads (with encoded slashes), lists, fast-forwards and deletes refs", async () => {
    const created = await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/naruto/m-1", sha: demo.mainSha });
    expect(created.status).toBe(201);
    expect(field(created.body, "ref")).toBe("refs/heads/naruto/m-1");
    const again = await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/naruto/m-1", sha: demo.mainSha });
    expect(again.status).toBe(422);
    expect(field(again.body, "message")).toBe("Reference already exists");

    const encoded = await call("GET", "/repos/acme/demo/git/ref/heads%2Fnaruto%2Fm-1");
    expect(field(encoded.body, "object", "sha")).toBe(demo.mainSha);
    const matching = await call("GET", "/repos/acme/demo/git/matching-refs/heads%2Fnaruto%2F");
    expect((matching.body as unknown[]).map((r) => field(r, "ref"))).toEqual(["refs/heads/naruto/m-1"]);

    const next = await commitOn(demo.mainSha, "m1.txt", "m1\n");
    const moved = await call("PATCH", "/repos/acme/demo/git/refs/heads%2Fnaruto%2Fm-1", { sha: next, force: false });
    expect(moved.status).toBe(200);
    expect(field(moved.body, "object", "sha")).toBe(next);

    const deleted = await call("DELETE", "/repos/acme/demo/git/refs/heads%2Fnaruto%2Fm-1");
    expect(deleted.status).toBe(204);
    expect((await call("GET", "/repos/acme/demo/git/ref/heads/naruto/m-1")).status).toBe(404);
    expect((await call("DELETE", "/repos/acme/demo/git/refs/heads/naruto/m-1")).status).toBe(422);
  });

  it("refuses a non-fast-forward move unless forced", async () => {
    await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/cas", sha: demo.mainSha });
    const ours = await commitOn(demo.mainSha, "ours.txt", "ours\n");
    const theirs = await commitOn(demo.mainSha, "theirs.txt", "theirs\n");
    expect((await call("PATCH", "/repos/acme/demo/git/refs/heads/cas", { sha: ours })).status).toBe(200);
    const refused = await call("PATCH", "/repos/acme/demo/git/refs/heads/cas", { sha: theirs, force: false });
    expect(refused.status).toBe(422);
    expect(field(refused.body, "message")).toBe("Update is not a fast forward");
    const forced = await call("PATCH", "/repos/acme/demo/git/refs/heads/cas", { sha: theirs, force: true });
    expect(field(forced.body, "object", "sha")).toBe(theirs);
  });

  it("lets exactly one of 20 concurrent PATCHes from the same old sha win", async () => {
    await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/race", sha: demo.mainSha });
    // Twenty different children of main: same tree, different messages.
    const tree = field((await call("GET", `/repos/acme/demo/git/commits/${demo.mainSha}`)).body, "tree", "sha");
    const candidates = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const commit = await call("POST", "/repos/acme/demo/git/commits", { message: `race ${i}`, tree, parents: [demo.mainSha] });
        return String(field(commit.body, "sha"));
      }),
    );
    const answers = await Promise.all(candidates.map((sha) => call("PATCH", "/repos/acme/demo/git/refs/heads%2Frace", { sha, force: false })));
    const winners = answers.filter((a) => a.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((a) => a.status === 422)).toHaveLength(19);
    const head = await call("GET", "/repos/acme/demo/git/ref/heads/race");
    expect(field(head.body, "object", "sha")).toBe(field(winners[0]?.body, "object", "sha"));
  });

  it("compares base...head with GitHub's status, counts and files", async () => {
    const head = await commitOn(demo.mainSha, "src/a.ts", "export const a = 2;\n");
    await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/compare-me", sha: head });
    const answer = await call("GET", "/repos/acme/demo/compare/main...compare-me");
    expect(answer.status).toBe(200);
    expect(field(answer.body, "status")).toBe("ahead");
    expect(field(answer.body, "ahead_by")).toBe(1);
    expect(field(answer.body, "behind_by")).toBe(0);
    expect(field(answer.body, "files", 0)).toMatchObject({ filename: "src/a.ts", status: "modified", additions: 1, deletions: 1 });
    expect(field(await call("GET", "/repos/acme/demo/compare/compare-me...main").then((a) => a.body), "status")).toBe("behind");
    expect((await call("GET", "/repos/acme/demo/compare/main...nope")).status).toBe(404);
  });
});
