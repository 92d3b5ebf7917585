/**
 * The GitHub port's operations, over real HTTP, against the fake GitHub (default) or real GitHub.
 *
 * To run against real GitHub (never in the default run):
 *
 *   NARUTO_TEST_GITHUB_TOKEN=<token with contents, issues, pull requests (and actions) write>
 *   NARUTO_TEST_GITHUB_REPO=owner/scratch-repo     # a throwaway repository with a commit on main
 *   NARUTO_TEST_GITHUB_ISSUE=1                       # an open issue to comment on (default 1)
 *   NARUTO_TEST_GITHUB_BRANCH=main                   # its default branch (default main)
 *   NARUTO_TEST_GITHUB_WORKFLOW=naruto.yml           # optional: a workflow_dispatch workflow with
 *                                                    # inputs `mission` (required) and `items`
 *   NARUTO_TEST_GITHUB_CHECKS=1                      # optional: the token is a GitHub App's
 *                                                    # (only apps may write check runs)
 *   npx vitest run test/github/port.test.ts
 *
 * It creates branches under `naruto-test-<random>/` and deletes them at the end; comments,
 * pull requests (closed at the end), check runs and dispatched runs stay behind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMENT_BODY_LIMIT, CHECK_TEXT_LIMIT, GitHubError, InputLimitError, markerFor, NotFastForwardError, RefExistsError } from "../../src/github/index.ts";
import { startTarget, type PortTarget } from "./target.ts";

let t: PortTarget;
let base: string;

beforeAll(async () => {
  t = await startTarget(process.env);
  const head = await t.github.getRef(`refs/heads/${t.defaultBranch}`);
  if (head === null) throw new Error(`${t.repo.owner}/${t.repo.repo} has no ${t.defaultBranch}`);
  base = head;
});
afterAll(async () => {
  t.fake?.assertNoViolations();
  await t.close();
});

/** A commit on top of `parent` that writes `files`, through the Git Data API. */
async function commitFiles(parent: string, files: Record<string, string>, message = "test commit"): Promise<string> {
  const { tree } = await t.github.getCommit(parent);
  const entries = await Promise.all(Object.entries(files).map(async ([path, text]) => ({ path, mode: "100644" as const, sha: await t.github.createBlob(text) })));
  return t.github.createCommit({ message, tree: await t.github.createTree({ entries, base: tree }), parents: [parent] });
}

describe("files", () => {
  it("reads a file at the default branch and at a commit, and null for a missing one", async () => {
    expect(await t.github.readFile({ path: "README.md" })).toMatch(/\S/);
    const next = await commitFiles(base, { "notes/x.txt": "héllo\n" });
    expect(await t.github.readFile({ path: "notes/x.txt", ref: next })).toBe("héllo\n");
    expect(await t.github.readFile({ path: "notes/x.txt", ref: base })).toBeNull();
    expect(await t.github.readFile({ path: "no/such/file.md" })).toBeNull();
  });

  it("refuses to read a directory as a file", async () => {
    const next = await commitFiles(base, { "dir/inner.txt": "x" });
    await expect(t.github.readFile({ path: "dir", ref: next })).rejects.toThrow(GitHubError);
  });
});

describe("comments and reactions", () => {
  it("creates a comment with its marker, then updates the same comment in place", async () => {
    const marker = markerFor(`tracking:${t.scratch.slice(-9, -1)}`);
    const first = await t.github.upsertComment({ issue: t.issue, marker, body: "first" });
    expect(first.body).toBe(`${marker}\nfirst`);
    const second = await t.github.upsertComment({ issue: t.issue, marker, body: "second" });
    expect(second.id).toBe(first.id);
    expect((await t.github.findComment({ issue: t.issue, marker }))?.body).toBe(`${marker}\nsecond`);
    // The same body again sends no update.
    expect((await t.github.upsertComment({ issue: t.issue, marker, body: "second" })).id).toBe(first.id);
  });

  it("finds a marker only at the start of a comment and, when asked, only by the given author", async () => {
    const marker = markerFor(`quoted:${t.scratch.slice(-9, -1)}`);
    expect(await t.github.findComment({ issue: t.issue, marker })).toBeNull();
    const created = await t.github.upsertComment({ issue: t.issue, marker, body: "mine" });
    expect(await t.github.findComment({ issue: t.issue, marker, author: "somebody-else" })).toBeNull();
    if (created.author !== null) expect((await t.github.findComment({ issue: t.issue, marker, author: created.author }))?.id).toBe(created.id);
  });

  it("cuts a body over GitHub's limit, keeping the marker and ending with the link", async () => {
    const marker = markerFor(`long:${t.scratch.slice(-9, -1)}`);
    const comment = await t.github.upsertComment({ issue: t.issue, marker, body: "x".repeat(COMMENT_BODY_LIMIT + 10), link: "https://example.test/run/1" });
    expect(comment.body.length).toBeLessThanOrEqual(COMMENT_BODY_LIMIT);
    expect(comment.body.startsWith(marker)).toBe(true);
    expect(comment.body).toMatch(/truncated: \d+ characters not shown\. Full text: https:\/\/example\.test\/run\/1$/);
  });

  it("refuses a marker that is not a naruto marker", async () => {
    await expect(t.github.upsertComment({ issue: t.issue, marker: "<!-- other -->", body: "x" })).rejects.toThrow(TypeError);
  });

  it("adds reactions to an issue and to a comment; adding one twice is harmless", async () => {
    const comment = await t.github.upsertComment({ issue: t.issue, marker: markerFor(`react:${t.scratch.slice(-9, -1)}`), body: "react here" });
    await t.github.addReaction({ target: { issue: t.issue }, content: "eyes" });
    await t.github.addReaction({ target: { comment: comment.id }, content: "eyes" });
    await t.github.addReaction({ target: { comment: comment.id }, content: "eyes" });
    if (t.fake) {
      const reactions = t.fake.repo("acme/demo").reactions.filter((r) => r.subject.kind === "comment" && r.subject.id === comment.id);
      expect(reactions.map((r) => r.content)).toEqual(["eyes"]);
    }
  });
});

describe("permissions", () => {
  it.runIf(process.env["NARUTO_TEST_GITHUB_TOKEN"] === undefined)("reads each user's role, and none for a stranger", async () => {
    expect(await t.github.permission({ user: "octo-maintainer" })).toBe("write");
    expect(await t.github.permission({ user: "octo-outsider" })).toBe("read");
    expect(await t.github.permission({ user: "nobody-at-all" })).toBe("none");
  });

  it("reads the owner's role as one of GitHub's roles", async () => {
    expect(["admin", "maintain", "write", "triage", "read", "none"]).toContain(await t.github.permission({ user: t.repo.owner }));
  });
});
