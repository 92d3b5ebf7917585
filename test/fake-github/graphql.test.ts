/**
 * GraphQL (`POST /graphql`, and `/api/graphql` as GitHub Enterprise Server serves it): a pull
 * request's review threads, paged; authentication and access as on GitHub; unknown fields fail
 * validation with 200 and `errors`, in GitHub's words.
 */
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, field, startDemo, type Demo } from "./helpers.ts";

let demo: Demo;
let call: ReturnType<typeof api>;
let pull: number;
let headSha: string;

const THREADS = `query ($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      headRefName headRefOid baseRefName isCrossRepository
      reviewThreads(first: 2, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved isOutdated path line originalLine comments(first: 10) { nodes { body author { login } } } }
      }
    }
  }
}`;

async function graphql(token: string | null, query: string, variables: Record<string, unknown> = {}, base = demo.github.url) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== null) headers["authorization"] = `bearer ${token}`;
  const response = await fetch(`${base}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
  return { status: response.status, body: (await response.json()) as unknown };
}

beforeAll(async () => {
  demo = await startDemo();
  call = api(demo.github, demo.maintainer);
  const base = await call("GET", `/repos/acme/demo/git/commits/${demo.mainSha}`);
  const tree = await call("POST", "/repos/acme/demo/git/trees", {
    base_tree: field(base.body, "tree", "sha"),
    tree: [{ path: "src/b.ts", mode: "100644", type: "blob", content: "export const b = 1;\n" }],
  });
  const commit = await call("POST", "/repos/acme/demo/git/commits", { message: "add b", tree: field(tree.body, "sha"), parents: [demo.mainSha] });
  headSha = String(field(commit.body, "sha"));
  await call("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/feature", sha: headSha });
  const created = await call("POST", "/repos/acme/demo/pulls", { title: "Feature", head: "feature", base: "main" });
  pull = Number(field(created.body, "number"));
  const reviewer = "octo-maintainer";
  demo.github.addReviewThread({
    repo: "acme/demo",
    pull,
    path: "src/b.ts",
    line: 1,
    comments: [
      { user: reviewer, body: "Rename `b`." },
      { user: "octo-outsider", body: "+1" },
    ],
  });
  const resolved = demo.github.addReviewThread({ repo: "acme/demo", pull, path: "src/a.ts", line: 1, comments: [{ user: reviewer, body: "done already" }] });
  demo.github.setReviewThread({ repo: "acme/demo", thread: resolved.id, resolved: true, by: reviewer });
  demo.github.addReviewThread({ repo: "acme/demo", pull, path: "README.md", line: 1, outdated: true, comments: [{ user: reviewer, body: "old line" }] });
});
afterAll(async () => {
  demo.github.assertNoViolations();
  await demo.github.close();
});

describe("review threads", () => {
  it("pages through a pull request's review threads with their comments", async () => {
    const vars = { owner: "acme", name: "demo", number: pull };
    const first = await graphql(demo.maintainer, THREADS, vars);
    expect(first.status).toBe(200);
    expect(field(first.body, "errors")).toBeUndefined();
    const pr = field(first.body, "data", "repository", "pullRequest");
    expect(pr).toMatchObject({ headRefName: "feature", headRefOid: headSha, baseRefName: "main", isCrossRepository: false });
    expect(field(pr, "reviewThreads", "totalCount")).toBe(3);
    expect(field(pr, "reviewThreads", "pageInfo", "hasNextPage")).toBe(true);
    expect(field(pr, "reviewThreads", "nodes")).toEqual([
      {
        id: expect.any(String),
        isResolved: false,
        isOutdated: false,
        path: "src/b.ts",
        line: 1,
        originalLine: 1,
        comments: {
          nodes: [
            { body: "Rename `b`.", author: { login: "octo-maintainer" } },
            { body: "+1", author: { login: "octo-outsider" } },
          ],
        },
      },
      expect.objectContaining({ isResolved: true, path: "src/a.ts" }),
    ]);

    const second = await graphql(demo.maintainer, THREADS, { ...vars, after: field(pr, "reviewThreads", "pageInfo", "endCursor") });
    const rest = field(second.body, "data", "repository", "pullRequest", "reviewThreads");
    expect(field(rest, "pageInfo", "hasNextPage")).toBe(false);
    // An outdated thread keeps its original line; `line` is null, as on GitHub.
    expect(field(rest, "nodes")).toEqual([expect.objectContaining({ path: "README.md", isOutdated: true, line: null, originalLine: 1 })]);
  });

  it("answers Octokit's graphql client at /graphql and at /api/graphql (GitHub Enterprise Server)", async () => {
    for (const baseUrl of [demo.github.url, demo.github.apiUrl]) {
      const octokit = new Octokit({ auth: demo.maintainer, baseUrl });
      const data = await octokit.graphql<{ repository: { pullRequest: { reviewThreads: { totalCount: number } } } }>(
        'query ($n: Int!) { repository(owner: "acme", name: "demo") { pullRequest(number: $n) { reviewThreads(first: 1) { totalCount } } } }',
        { n: pull },
      );
      expect(data.repository.pullRequest.reviewThreads.totalCount).toBe(3);
    }
    const enterprise = demo.github.requests.filter((r) => r.kind === "graphql" && r.enterprise);
    expect(enterprise.length).toBeGreaterThan(0);
    expect(enterprise.every((r) => r.path === "/graphql")).toBe(true);
  });

  it("shows a reply and a resolution made after the first read", async () => {
    const handle = demo.github.addReviewThread({ repo: "acme/demo", pull, path: "src/c.ts", line: 3, comments: [{ user: "octo-maintainer", body: "one" }] });
    demo.github.addReviewComment({ repo: "acme/demo", thread: handle.id, user: "octo-outsider", body: "two" });
    const query = `query { repository(owner: "acme", name: "demo") { pullRequest(number: ${pull}) { reviewThreads(last: 1) { nodes { id isResolved comments(first: 5) { totalCount } } } } } }`;
    const before = await graphql(demo.maintainer, query);
    expect(field(before.body, "data", "repository", "pullRequest", "reviewThreads", "nodes", 0)).toEqual({
      id: handle.id,
      isResolved: false,
      comments: { totalCount: 2 },
    });
    demo.github.setReviewThread({ repo: "acme/demo", thread: handle.id, resolved: true, by: "octo-maintainer" });
    const after = await graphql(demo.maintainer, query);
    expect(field(after.body, "data", "repository", "pullRequest", "reviewThreads", "nodes", 0, "isResolved")).toBe(true);
  });
});

describe("errors as GitHub gives them", () => {
  it("fails validation of an unknown field with 200, `errors` and no data, and records a violation", async () => {
    const answer = await graphql(
      demo.maintainer,
      `{ repository(owner: "acme", name: "demo") { pullRequest(number: ${pull}) { reviewThreads(first: 1) { nodes { isResolvedd } } } } }`,
    );
    expect(answer.status).toBe(200);
    expect(field(answer.body, "data")).toBeUndefined();
    expect(field(answer.body, "errors")).toEqual([
      {
        extensions: { code: "undefinedField", typeName: "PullRequestReviewThread", fieldName: "isResolvedd" },
        locations: [expect.any(Object)],
        message: "Field 'isResolvedd' doesn't exist on type 'PullRequestReviewThread'",
      },
    ]);
    const unknownArgument = await graphql(
      demo.maintainer,
      `{ repository(owner: "acme", name: "demo") { pullRequest(number: ${pull}) { reviewThreads(first: 1, unresolved: true) { totalCount } } } }`,
    );
    expect(field(unknownArgument.body, "errors", 0, "message")).toBe("Field 'reviewThreads' doesn't accept argument 'unresolved'");
    expect(demo.github.violations.splice(0).map((v) => v.problems[0])).toEqual([
      "Field 'isResolvedd' doesn't exist on type 'PullRequestReviewThread'",
      "Field 'reviewThreads' doesn't accept argument 'unresolved'",
    ]);
  });

  it("answers 401 without a token or with a bad one", async () => {
    const anonymous = await graphql(null, "{ viewer { login } }");
    expect(anonymous.status).toBe(401);
    expect(field(anonymous.body, "message")).toBe("This endpoint requires you to be authenticated.");
    const bad = await graphql("ghp_notatoken", "{ viewer { login } }");
    expect(bad).toMatchObject({ status: 401, body: { message: "Bad credentials" } });
  });

  it("says NOT_FOUND for a repository the token cannot see and for a missing pull request", async () => {
    const hidden = await graphql(demo.stranger, `{ repository(owner: "acme", name: "demo") { name } }`);
    expect(hidden.body).toEqual({
      data: { repository: null },
      errors: [
        { type: "NOT_FOUND", path: ["repository"], locations: [expect.any(Object)], message: "Could not resolve to a Repository with the name 'acme/demo'." },
      ],
    });
    const missing = await graphql(demo.maintainer, `{ repository(owner: "acme", name: "demo") { pullRequest(number: 999) { number } } }`);
    expect(missing.body).toMatchObject({
      data: { repository: { pullRequest: null } },
      errors: [{ type: "NOT_FOUND", path: ["repository", "pullRequest"], message: "Could not resolve to a PullRequest with the number of 999." }],
    });
    // An issue is not a pull request.
    const issue = await graphql(demo.maintainer, `{ repository(owner: "acme", name: "demo") { pullRequest(number: 1) { number } } }`);
    expect(field(issue.body, "errors", 0, "type")).toBe("NOT_FOUND");
  });

  it("needs pull_requests: read from an installation token", async () => {
    const query = `{ viewer { login } repository(owner: "acme", name: "demo") { pullRequest(number: ${pull}) { number } } }`;
    const contentsOnly = demo.github.issueAppToken({ owner: "acme", permissions: { contents: "read" } }).token;
    const refused = await graphql(contentsOnly, query);
    expect(refused.body).toMatchObject({
      data: { viewer: { login: "naruto[bot]" }, repository: { pullRequest: null } },
      errors: [{ type: "FORBIDDEN", path: ["repository", "pullRequest"], message: "Resource not accessible by integration" }],
    });
    const reader = demo.github.issueAppToken({ owner: "acme", permissions: { pull_requests: "read" } }).token;
    expect(await graphql(reader, query)).toMatchObject({ status: 200, body: { data: { repository: { pullRequest: { number: pull } } } } });
  });

  it("asks for `first` or `last`, at most 100", async () => {
    const page = (args: string) =>
      `{ repository(owner: "acme", name: "demo") { pullRequest(number: ${pull}) { number reviewThreads${args} { totalCount } } } }`;
    const none = await graphql(demo.maintainer, page(""));
    expect(field(none.body, "errors", 0)).toMatchObject({
      type: "MISSING_PAGINATION_BOUNDARIES",
      message: "You must provide a `first` or `last` value to properly paginate the `reviewThreads` connection.",
    });
    const tooMany = await graphql(demo.maintainer, page("(first: 101)"));
    expect(field(tooMany.body, "errors", 0)).toMatchObject({
      type: "EXCESSIVE_PAGINATION",
      message: "Requesting 101 records on the `reviewThreads` connection exceeds the `first` limit of 100 records.",
    });
  });

  it("answers a body without a query with an error, and a malformed document with a parse error", async () => {
    const noQuery = await fetch(`${demo.github.url}/graphql`, {
      method: "POST",
      headers: { authorization: `token ${demo.maintainer}` },
      body: JSON.stringify({}),
    });
    expect(await noQuery.json()).toEqual({ errors: [{ message: "A query attribute must be specified and must be a string." }] });
    const broken = await graphql(demo.maintainer, "{ repository(owner: ");
    expect(field(broken.body, "errors", 0, "message")).toMatch(/^Parse error on /);
    expect(demo.github.violations.splice(0)).toHaveLength(2);
  });
});
