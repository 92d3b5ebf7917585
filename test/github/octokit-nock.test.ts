/**
 * Adapter behaviours the fake GitHub cannot show, against recorded-style answers from nock 14
 * (which intercepts Octokit 22's fetch): finding a check run after a lost answer (the fake has
 * no check-run listing), a 409 on a read, auth per attempt, and a GitHub Enterprise base URL.
 * Every interceptor answers once, so a request sent again fails the test.
 */
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, createGitHub, RefExistsError, type CreateGitHubOptions } from "../../src/github/index.ts";

const API = "https://api.github.test";
const SHA = "a".repeat(40);
const FAST = { retry: { retries: 3, baseDelayMs: 1 }, throttle: { writeIntervalMs: 0, notificationIntervalMs: 0 }, sleep: () => Promise.resolve() } as const;
const github = (options: Partial<CreateGitHubOptions> = {}) =>
  createGitHub({ token: "t0ken", repo: { owner: "acme", repo: "demo" }, baseUrl: API, userAgent: "naruto-tests", ...FAST, ...options });

const checkRun = (id: number, externalId: string) => ({
  id,
  name: "naruto",
  head_sha: SHA,
  status: "in_progress",
  conclusion: null,
  html_url: `https://github.test/acme/demo/runs/${id}`,
  external_id: externalId,
});

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

describe("check runs after a lost answer", () => {
  it("finds the check run the failed request created, by its external id, instead of creating another", async () => {
    nock(API).post("/repos/acme/demo/check-runs").reply(502, { message: "Bad Gateway" });
    nock(API)
      .get(`/repos/acme/demo/commits/${SHA}/check-runs`)
      .query({ check_name: "naruto", filter: "all", per_page: "100" })
      .reply(200, { total_count: 2, check_runs: [checkRun(6, "m-1:other"), checkRun(7, "m-1:review")] });
    const run = await github().createCheckRun({ name: "naruto", headSha: SHA, externalId: "m-1:review", status: "in_progress" });
    expect(run).toMatchObject({ id: 7, externalId: "m-1:review" });
  });

  it("creates it again only when the check finds nothing", async () => {
    nock(API).post("/repos/acme/demo/check-runs").reply(503, { message: "Service Unavailable" });
    nock(API).get(`/repos/acme/demo/commits/${SHA}/check-runs`).query(true).reply(200, { total_count: 0, check_runs: [] });
    nock(API).post("/repos/acme/demo/check-runs").reply(201, checkRun(8, "m-1:review"));
    expect((await github().createCheckRun({ name: "naruto", headSha: SHA, externalId: "m-1:review", status: "in_progress" })).id).toBe(8);
  });
});

describe("answers that are never retried", () => {
  it("surfaces a 409 on a read as ConflictError after one request", async () => {
    nock(API).get(`/repos/acme/demo/git/commits/${SHA}`).reply(409, { message: "Git Repository is empty." });
    await expect(github().getCommit(SHA)).rejects.toThrow(ConflictError);
  });

  it("surfaces a 422 on a create as a typed error after one request", async () => {
    nock(API).post("/repos/acme/demo/git/refs").reply(422, { message: "Reference already exists" });
    await expect(github().createRef({ ref: "refs/heads/naruto-state/m-1", sha: SHA })).rejects.toThrow(RefExistsError);
  });
});

describe("rate limits GitHub does not name in the message", () => {
  it.each([429, 403])("waits out a %i with retry-after as a secondary rate limit, then retries once", async (status) => {
    nock(API).get("/repos/acme/demo/git/ref/heads%2Fmain").reply(status, { message: "Too Many Requests" }, { "retry-after": "1" });
    nock(API)
      .get("/repos/acme/demo/git/ref/heads%2Fmain")
      .reply(200, { ref: "refs/heads/main", object: { sha: SHA, type: "commit" } });
    expect(await github().getRef("refs/heads/main")).toBe(SHA);
  });

  it("does not retry a 403 that is no rate limit (a missing permission)", async () => {
    nock(API).get("/repos/acme/demo/git/ref/heads%2Fmain").reply(403, { message: "Resource not accessible by integration" });
    await expect(github().getRef("refs/heads/main")).rejects.toMatchObject({ status: 403 });
  });
});

describe("requests", () => {
  it("asks the auth function for the token on every attempt, so an expired token is replaced", async () => {
    const tokens = ["first", "second"];
    const seen: string[] = [];
    const record = function (this: { req: { headers: Record<string, string | string[] | undefined> } }) {
      seen.push(String(this.req.headers["authorization"]));
    };
    nock(API)
      .get("/repos/acme/demo/git/ref/heads%2Fnaruto%2Fm-1")
      .reply(function () {
        record.call(this);
        return [502, { message: "Bad Gateway" }];
      });
    nock(API)
      .get("/repos/acme/demo/git/ref/heads%2Fnaruto%2Fm-1")
      .reply(function () {
        record.call(this);
        return [200, { ref: "refs/heads/naruto/m-1", object: { sha: SHA, type: "commit" } }];
      });
    const client = createGitHub({
      auth: async () => tokens.shift() ?? "none",
      repo: { owner: "acme", repo: "demo" },
      baseUrl: API,
      userAgent: "naruto-tests",
      ...FAST,
    });
    expect(await client.getRef("refs/heads/naruto/m-1")).toBe(SHA);
    expect(seen).toEqual(["token first", "token second"]);
  });

  it("talks to GitHub Enterprise Server under /api/v3", async () => {
    nock("https://ghe.test")
      .get("/api/v3/repos/acme/demo/collaborators/octo/permission")
      .reply(200, { permission: "write", role_name: "maintain", user: { login: "octo", id: 583231 } });
    expect(await github({ baseUrl: "https://ghe.test/api/v3/" }).permission({ user: "octo" })).toEqual({ role: "maintain", id: 583231 });
  });

  it("refuses to start without exactly one of token and auth", () => {
    expect(() => createGitHub({ repo: { owner: "a", repo: "b" }, userAgent: "x" })).toThrow(TypeError);
  });
});
