/** App JWTs, installation tokens that expire and may be narrowed, and what narrowed tokens may do. */
import { createSign } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, field, startDemo, type Demo } from "./helpers.ts";

let demo: Demo;

beforeAll(async () => {
  demo = await startDemo({ installationTokenLifetimeMs: 60 * 60 * 1000 });
});
afterAll(async () => {
  demo.github.assertNoViolations();
  await demo.github.close();
});

function jwtWith(claims: Record<string, unknown>): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const head = `${b64({ alg: "RS256", typ: "JWT" })}.${b64(claims)}`;
  return `${head}.${createSign("RSA-SHA256").update(head).sign(demo.github.app.privateKey).toString("base64url")}`;
}

describe("GitHub App authentication", () => {
  it("finds the installation and exchanges the JWT for a long installation token that expires", async () => {
    const app = api(demo.github, demo.github.appJwt());
    const installation = await app("GET", "/repos/acme/demo/installation");
    expect(installation.body).toMatchObject({ id: demo.github.installationId("acme"), account: { login: "acme" }, app_id: demo.github.app.id });
    const issued = await app("POST", `/app/installations/${String(field(installation.body, "id"))}/access_tokens`, {});
    expect(issued.status).toBe(201);
    const token = String(field(issued.body, "token"));
    expect(token).toMatch(/^ghs_/);
    expect(token.length).toBeGreaterThan(40);
    expect(Date.parse(String(field(issued.body, "expires_at"))) - Date.now()).toBeGreaterThan(59 * 60 * 1000);

    const bot = api(demo.github, token);
    expect((await bot("GET", "/repos/acme/demo")).status).toBe(200);
    demo.github.advanceClock(60 * 60 * 1000 + 1);
    const expired = await bot("GET", "/repos/acme/demo");
    expect(expired.status).toBe(401);
    expect(field(expired.body, "message")).toBe("Bad credentials");
  });

  it.each([
    ["an expired JWT", () => jwtWith({ iat: Math.floor(demo.github.now() / 1000) - 700, exp: Math.floor(demo.github.now() / 1000) - 60, iss: 1 })],
    ["a JWT for another app", () => jwtWith({ iat: Math.floor(demo.github.now() / 1000) - 30, exp: Math.floor(demo.github.now() / 1000) + 500, iss: 2 })],
    ["a JWT that lasts too long", () => jwtWith({ iat: Math.floor(demo.github.now() / 1000), exp: Math.floor(demo.github.now() / 1000) + 3600, iss: 1 })],
    ["a personal token", () => demo.maintainer],
  ])("refuses %s on the app endpoints with 401", async (_, token) => {
    const answer = await api(demo.github, token())("POST", `/app/installations/${demo.github.installationId("acme")}/access_tokens`, {});
    expect(answer.status).toBe(401);
  });

  it("narrows a token to fewer permissions and repositories, but never widens it", async () => {
    const app = api(demo.github, demo.github.appJwt());
    const path = `/app/installations/${demo.github.installationId("acme")}/access_tokens`;
    const narrowed = await app("POST", path, { permissions: { contents: "read", issues: "write" }, repositories: ["demo"] });
    expect(narrowed.body).toMatchObject({
      permissions: { contents: "read", issues: "write" },
      repository_selection: "selected",
      repositories: [{ full_name: "acme/demo" }],
    });
    const bot = api(demo.github, String(field(narrowed.body, "token")));
    expect((await bot("POST", "/repos/acme/demo/issues/1/comments", { body: "ok" })).status).toBe(201);
    const refused = await bot("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/x", sha: demo.mainSha });
    expect(refused.status).toBe(403);
    expect(field(refused.body, "message")).toBe("Resource not accessible by integration");

    const wider = await api(demo.github, demo.github.appJwt())("POST", path, { permissions: { administration: "write" } });
    expect(wider.status).toBe(422);
  });

  it("refuses to move a ref onto workflow changes without the workflows permission", async () => {
    const maintainer = api(demo.github, demo.maintainer);
    const base = await maintainer("GET", `/repos/acme/demo/git/commits/${demo.mainSha}`);
    const tree = await maintainer("POST", "/repos/acme/demo/git/trees", {
      base_tree: field(base.body, "tree", "sha"),
      tree: [{ path: ".github/workflows/naruto.yml", mode: "100644", type: "blob", content: "name: changed\non: push\n" }],
    });
    const commit = await maintainer("POST", "/repos/acme/demo/git/commits", { message: "ci", tree: field(tree.body, "sha"), parents: [demo.mainSha] });
    await maintainer("POST", "/repos/acme/demo/git/refs", { ref: "refs/heads/ci-change", sha: demo.mainSha });
    const noWorkflows = api(demo.github, demo.github.issueAppToken({ owner: "acme", permissions: { contents: "write" } }).token);
    const refused = await noWorkflows("PATCH", "/repos/acme/demo/git/refs/heads/ci-change", { sha: field(commit.body, "sha") });
    expect(refused.status).toBe(403);
    expect(String(field(refused.body, "message"))).toContain("without `workflows` permission");
    // The App has no `workflows` permission (app.yml); a user with write access may move it.
    expect((await maintainer("PATCH", "/repos/acme/demo/git/refs/heads/ci-change", { sha: field(commit.body, "sha") })).status).toBe(200);
  });

  it("gives job-style tokens (as the Actions simulator will) only the permissions they were issued with", async () => {
    const job = demo.github.issueAppToken({ owner: "acme", permissions: { contents: "read", actions: "read" }, bot: "github-actions[bot]" });
    const call = api(demo.github, job.token);
    expect((await call("GET", "/repos/acme/demo/contents/README.md")).status).toBe(200);
    const refused = await call("POST", "/repos/acme/demo/actions/workflows/naruto.yml/dispatches", { ref: "main", inputs: { mission: "m" } });
    expect(refused.status).toBe(403);
    demo.github.advanceClock(2 * 60 * 60 * 1000);
    expect((await call("GET", "/repos/acme/demo/contents/README.md")).status).toBe(401);
  });
});
