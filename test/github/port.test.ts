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
import {
  COMMENT_BODY_LIMIT,
  CHECK_TEXT_LIMIT,
  createGitHub,
  GitHubError,
  GraphqlError,
  InputLimitError,
  markerFor,
  NotFastForwardError,
  RefExistsError,
} from "../../src/github/index.ts";
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
  const entries = await Promise.all(
    Object.entries(files).map(async ([path, text]) => ({ path, mode: "100644" as const, sha: await t.github.createBlob(text) })),
  );
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
    expect(await t.github.permission({ user: "octo-maintainer" })).toEqual({ role: "write", id: expect.any(Number) });
    expect(await t.github.permission({ user: "octo-outsider" })).toEqual({ role: "read", id: expect.any(Number) });
    expect(await t.github.permission({ user: "nobody-at-all" })).toEqual({ role: "none", id: null });
  });

  it("reads the owner's role as one of GitHub's roles", async () => {
    expect(["admin", "maintain", "write", "triage", "read", "none"]).toContain((await t.github.permission({ user: t.repo.owner })).role);
  });
});

describe("workflow dispatch and runs", () => {
  it("dispatches with inputs and gets the run back; lists its jobs; cancels it once", async (ctx) => {
    if (t.workflow === null) return ctx.skip();
    const result = await t.github.dispatchWorkflow({ workflow: t.workflow, ref: t.defaultBranch, inputs: { mission: "m-test1", items: "a,b" } });
    if (result.runId === null) return ctx.skip(); // a server without return_run_details
    const run = await t.github.getRun({ runId: result.runId });
    expect(run).toMatchObject({ id: result.runId, headSha: base, attempt: 1 });
    if (t.fake) {
      expect(t.fake.dispatches.at(-1)?.inputs).toEqual({ mission: "m-test1", items: "a,b" });
      t.fake.setJob(result.runId, { name: "work (a)", status: "in_progress" });
      t.fake.setJob(result.runId, { name: "work (b)", status: "completed", conclusion: "success" });
      const jobs = await t.github.listJobs({ runId: result.runId });
      expect(jobs.map((j) => [j.name, j.status, j.conclusion])).toEqual([
        ["work (a)", "in_progress", null],
        ["work (b)", "completed", "success"],
      ]);
      expect(await t.github.cancelRun({ runId: result.runId })).toBe(true);
      expect((await t.github.getRun({ runId: result.runId })).conclusion).toBe("cancelled");
      // 409 from GitHub: the run has finished.
      expect(await t.github.cancelRun({ runId: result.runId })).toBe(false);
    }
  });

  it("refuses inputs over GitHub's limits before sending anything", async () => {
    const sent = t.fake?.requests.length ?? 0;
    const many = Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`k${i}`, "v"]));
    await expect(t.github.dispatchWorkflow({ workflow: "naruto.yml", ref: t.defaultBranch, inputs: many })).rejects.toThrow(InputLimitError);
    await expect(t.github.dispatchWorkflow({ workflow: "naruto.yml", ref: t.defaultBranch, inputs: { mission: "p".repeat(65_536) } })).rejects.toThrow(
      InputLimitError,
    );
    if (t.fake) expect(t.fake.requests.length).toBe(sent);
  });
});

describe("pull requests", () => {
  it("opens a pull request once, finds it by head, and updates it", async () => {
    const head = `${t.scratch.slice("refs/heads/".length)}queue`;
    await t.github.createRef({ ref: `refs/heads/${head}`, sha: await commitFiles(base, { "queue.txt": "queued\n" }) });
    expect(await t.github.findPullRequest({ head })).toBeNull();
    const opened = await t.github.createPullRequest({ head, base: t.defaultBranch, title: "naruto: queue", body: "the queue" });
    expect(opened).toMatchObject({ head, base: t.defaultBranch, state: "open", title: "naruto: queue" });
    // Opening again returns the same pull request instead of failing or opening a second one.
    expect((await t.github.createPullRequest({ head, base: t.defaultBranch, title: "again", body: "again" })).number).toBe(opened.number);
    expect((await t.github.findPullRequest({ head, base: t.defaultBranch }))?.number).toBe(opened.number);
    const updated = await t.github.updatePullRequest({
      number: opened.number,
      title: "naruto: queue (2)",
      body: "y".repeat(COMMENT_BODY_LIMIT + 1),
      link: "https://example.test/report",
    });
    expect(updated.title).toBe("naruto: queue (2)");
    const closed = await t.github.updatePullRequest({ number: opened.number, state: "closed" });
    expect(closed.state).toBe("closed");
    expect(await t.github.findPullRequest({ head })).toBeNull();
  });
});

describe("a pull request and its review threads", () => {
  let number: number;
  let head: string;
  let headSha: string;

  beforeAll(async () => {
    head = `${t.scratch.slice("refs/heads/".length)}reviewed`;
    headSha = await commitFiles(base, { "src/reviewed.ts": "export const r = 1;\n" });
    await t.github.createRef({ ref: `refs/heads/${head}`, sha: headSha });
    number = (await t.github.createPullRequest({ head, base: t.defaultBranch, title: "naruto test: reviewed", body: "threads" })).number;
  });
  afterAll(async () => {
    await t.github.updatePullRequest({ number, state: "closed" });
  });

  it("reads a pull request by number with both sides, and null for an issue or a missing number", async () => {
    expect(await t.github.getPullRequest({ number })).toEqual({
      number,
      url: expect.stringContaining(`/pull/${number}`),
      title: "naruto test: reviewed",
      state: "open",
      head: { ref: head, sha: headSha, repo: `${t.repo.owner}/${t.repo.repo}` },
      base: { ref: t.defaultBranch, sha: base },
      fromFork: false,
    });
    expect(await t.github.getPullRequest({ number: t.issue })).toBeNull();
    expect(await t.github.getPullRequest({ number: 999_999 })).toBeNull();
  });

  it("reads a pull request from a fork as one: the head in the fork, its commit at refs/pull/<n>/head", async (ctx) => {
    if (!t.fake) return ctx.skip(); // Real GitHub: making a fork is beyond this suite.
    t.fake.addUser("octo-forker");
    const forkHead = await commitFiles(base, { "src/forked.ts": "export const f = 1;\n" });
    const forked = await t.fake.openForkPullRequest({
      repo: `${t.repo.owner}/${t.repo.repo}`,
      forkOwner: "octo-forker",
      headRef: "main",
      head: forkHead,
      base: t.defaultBranch,
      title: "naruto test: from a fork",
    });
    try {
      expect(await t.github.getPullRequest({ number: forked })).toEqual({
        number: forked,
        url: expect.stringContaining(`/pull/${forked}`),
        title: "naruto test: from a fork",
        state: "open",
        head: { ref: "main", sha: forkHead, repo: `octo-forker/${t.repo.repo}` },
        base: { ref: t.defaultBranch, sha: base },
        fromFork: true,
      });
      expect(await t.github.compareCommits({ base, head: forkHead })).toMatchObject({ mergeBase: base });
    } finally {
      await t.github.updatePullRequest({ number: forked, state: "closed" });
    }
  });

  it("reads every review thread through GraphQL, page after page, with the first comments of each", async (ctx) => {
    if (!t.fake) {
      // Real GitHub: a new pull request has no threads (writing them needs a review).
      expect(await t.github.reviewThreads({ pull: number })).toEqual([]);
      return ctx.skip();
    }
    const fake = t.fake;
    const repo = `${t.repo.owner}/${t.repo.repo}`;
    for (let i = 1; i <= 120; i++)
      fake.addReviewThread({ repo, pull: number, path: `src/f${i}.ts`, line: i, comments: [{ user: "octo-maintainer", body: `thread ${i}` }] });
    const long = fake.addReviewThread({ repo, pull: number, path: "src/long.ts", line: 2, comments: [{ user: "octo-maintainer", body: "first" }] });
    for (let i = 2; i <= 60; i++) fake.addReviewComment({ repo, thread: long.id, user: "octo-outsider", body: `reply ${i}` });
    fake.setReviewThread({ repo, thread: long.id, outdated: true });
    const before = fake.requests.filter((r) => r.kind === "graphql").length;

    const threads = await t.github.reviewThreads({ pull: number });
    expect(fake.requests.filter((r) => r.kind === "graphql").length - before).toBe(2);
    expect(threads).toHaveLength(121);
    expect(threads[0]).toEqual({
      id: expect.any(String),
      path: "src/f1.ts",
      line: 1,
      originalLine: 1,
      isResolved: false,
      isOutdated: false,
      comments: [{ author: "octo-maintainer", body: "thread 1" }],
      commentCount: 1,
    });
    expect(threads[119]?.path).toBe("src/f120.ts");
    const last = threads[120];
    expect(last).toMatchObject({ path: "src/long.ts", isOutdated: true, line: null, originalLine: 2, commentCount: 60 });
    expect(last?.comments).toHaveLength(50);
  });

  it("fails with a typed GraphQL error for a missing pull request and for a token without pull request access", async (ctx) => {
    const missing = await t.github.reviewThreads({ pull: 999_999 }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(GraphqlError);
    expect((missing as GraphqlError).has("NOT_FOUND")).toBe(true);
    expect((missing as GraphqlError).message).toContain("Could not resolve to a PullRequest with the number of 999999");
    if (!t.fake) return ctx.skip();
    const token = t.fake.issueAppToken({ owner: t.repo.owner, permissions: { contents: "read" } }).token;
    const narrow = createGitHub({ token, repo: t.repo, baseUrl: t.fake.url, userAgent: "naruto-tests" });
    const refused = await narrow.reviewThreads({ pull: number }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GraphqlError);
    expect((refused as GraphqlError).errors).toEqual([
      { type: "FORBIDDEN", message: "Resource not accessible by integration", path: ["repository", "pullRequest"] },
    ]);
    expect((refused as GraphqlError).message).toContain("pull_requests: read");
  });
});

describe("check runs", () => {
  it("creates a check run and completes it, cutting a long summary with the link", async (ctx) => {
    if (!t.checks) return ctx.skip();
    const created = await t.github.createCheckRun({
      name: "naruto",
      headSha: base,
      externalId: `${t.scratch}check`,
      status: "in_progress",
      output: { title: "Running", summary: "started" },
    });
    expect(created).toMatchObject({ name: "naruto", headSha: base, status: "in_progress", externalId: `${t.scratch}check` });
    const done = await t.github.updateCheckRun({
      id: created.id,
      conclusion: "success",
      output: { title: "Approved", summary: "s".repeat(CHECK_TEXT_LIMIT + 5), text: "t".repeat(CHECK_TEXT_LIMIT * 2) },
      link: "https://example.test/report",
    });
    expect(done).toMatchObject({ id: created.id, status: "completed", conclusion: "success" });
    if (t.fake) {
      const stored = t.fake.repo("acme/demo").checkRuns.get(created.id);
      expect(stored?.output.summary?.length).toBeLessThanOrEqual(CHECK_TEXT_LIMIT);
      expect(stored?.output.text?.length).toBeLessThanOrEqual(CHECK_TEXT_LIMIT);
      expect(stored?.output.summary).toMatch(/Full text: https:\/\/example\.test\/report$/);
    }
  });
});

describe("refs", () => {
  it("creates, reads, fast-forwards and deletes a ref; refuses a second create and a non-fast-forward", async () => {
    const ref = `${t.scratch}state`;
    expect(await t.github.getRef(ref)).toBeNull();
    const one = await commitFiles(base, { "one.txt": "1" });
    const two = await commitFiles(one, { "two.txt": "2" });
    const side = await commitFiles(base, { "side.txt": "s" });
    await t.github.createRef({ ref, sha: one });
    expect(await t.github.getRef(ref)).toBe(one);
    await expect(t.github.createRef({ ref, sha: two })).rejects.toThrow(RefExistsError);
    await t.github.updateRef({ ref, sha: two });
    expect(await t.github.getRef(ref)).toBe(two);
    await expect(t.github.updateRef({ ref, sha: side })).rejects.toThrow(NotFastForwardError);
    expect(await t.github.getRef(ref)).toBe(two);
    await t.github.updateRef({ ref, sha: side, force: true });
    expect(await t.github.getRef(ref)).toBe(side);
    expect(await t.github.deleteRef(ref)).toBe(true);
    expect(await t.github.deleteRef(ref)).toBe(false);
    expect(await t.github.getRef(ref)).toBeNull();
  });

  it("lists the refs under a prefix, and only those", async () => {
    await t.github.createRef({ ref: `${t.scratch}list/a`, sha: base });
    await t.github.createRef({ ref: `${t.scratch}list/b`, sha: base });
    await t.github.createRef({ ref: `${t.scratch}listed`, sha: base });
    const refs = await t.github.listRefs(`${t.scratch}list/`);
    expect(refs.map((r) => r.ref).sort()).toEqual([`${t.scratch}list/a`, `${t.scratch}list/b`]);
    expect(refs.every((r) => r.sha === base)).toBe(true);
    expect(await t.github.listRefs(`${t.scratch}nothing/`)).toEqual([]);
  });

  it("refuses a ref that is not fully qualified", async () => {
    await expect(t.github.getRef("heads/main")).rejects.toThrow(TypeError);
  });
});

describe("git data", () => {
  it("writes blobs, trees and commits without a checkout and reads the commit back", async () => {
    const text = await t.github.createBlob("text\n");
    const bytes = await t.github.createBlob(new Uint8Array([0, 1, 2, 255]));
    const tree = await t.github.createTree({
      entries: [
        { path: "state/mission.json", mode: "100644", sha: text },
        { path: "bin.dat", mode: "100644", sha: bytes },
      ],
    });
    const root = await t.github.createCommit({ message: "orphan state\n\nNaruto-Mission: m-1", tree, parents: [] });
    expect(await t.github.getCommit(root)).toEqual({ sha: root, tree, parents: [], message: "orphan state\n\nNaruto-Mission: m-1" });
    expect(await t.github.readFile({ path: "state/mission.json", ref: root })).toBe("text\n");
  });

  it("compares two commits: status, counts and the changed files with renames and deletions", async () => {
    const { tree } = await t.github.getCommit(base);
    const removeReadme = await t.github.createTree({ base: tree, entries: [{ path: "README.md", mode: "100644", sha: null }] });
    const withoutReadme = await t.github.createCommit({ message: "drop readme", tree: removeReadme, parents: [base] });
    const head = await commitFiles(withoutReadme, { "added.txt": "new\n" });
    const cmp = await t.github.compareCommits({ base, head });
    expect(cmp).toMatchObject({ status: "ahead", aheadBy: 2, behindBy: 0, filesComplete: true, mergeBase: base });
    expect(cmp.files.map((f) => [f.path, f.status]).sort()).toEqual([
      ["README.md", "removed"],
      ["added.txt", "added"],
    ]);
    const back = await t.github.compareCommits({ base: head, head: base });
    expect(back).toMatchObject({ status: "behind", aheadBy: 0, behindBy: 2 });
    // Two sides that both moved on are measured from where they parted.
    const side = await commitFiles(base, { "side.txt": "side\n" });
    expect(await t.github.compareCommits({ base: head, head: side })).toMatchObject({ status: "diverged", aheadBy: 1, behindBy: 2, mergeBase: base });
  });
});
