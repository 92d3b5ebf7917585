/**
 * The port with an `auth` that fails (as the App's installation-token request does when the
 * installation is gone, 404, or GitHub fails, 5xx): every call fails with TokenUnavailableError,
 * never read as the call's own answer (a missing file, a missing ref, `none` permission), never
 * retried as if the call had been sent, never an "outcome unknown" write.
 */
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGitHub, markerFor, TokenUnavailableError, type GitHubPort } from "../../src/github/index.ts";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";

let fake: FakeGitHub;
beforeAll(async () => {
  fake = await startFakeGitHub();
  await fake.createRepo({ owner: "acme", name: "demo", files: { "README.md": "# demo\n", ".github/naruto.yml": "version: 1\n" }, issues: [{ title: "x" }] });
  fake.addUser("octo-maintainer", { permission: "write" });
});
afterAll(async () => {
  fake.assertNoViolations();
  await fake.close();
});

const TOKENS = "POST /app/installations/{installation_id}/access_tokens";

/** The port, minting its token for `installationId` as an App does (with the app's JWT). */
function portFor(installationId: number): GitHubPort {
  const app = new Octokit({ auth: fake.appJwt(), baseUrl: fake.apiUrl });
  const auth = async () => (await app.rest.apps.createInstallationAccessToken({ installation_id: installationId })).data.token;
  return createGitHub({
    auth,
    repo: { owner: "acme", repo: "demo" },
    baseUrl: fake.apiUrl,
    userAgent: "naruto-tests",
    retry: { retries: 2, baseDelayMs: 1 },
    sleep: () => Promise.resolve(),
  });
}

describe("a port whose token cannot be had", () => {
  it.each([
    ["read a file (not: no such file)", (g: GitHubPort) => g.readFile({ path: ".github/naruto.yml", ref: "main" })],
    ["read a ref (not: no such ref)", (g: GitHubPort) => g.getRef("refs/heads/main")],
    ["read a permission (not: none)", (g: GitHubPort) => g.permission({ user: "octo-maintainer" })],
    ["delete a ref (not: it was gone)", (g: GitHubPort) => g.deleteRef("refs/heads/main")],
    ["write a comment (not: outcome unknown)", (g: GitHubPort) => g.upsertComment({ issue: 1, marker: markerFor("t"), body: "hi" })],
  ])("fails to %s when the installation is gone (404)", async (_what, call) => {
    const before = fake.requests.length;
    const failed = await call(portFor(424_242)).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(TokenUnavailableError);
    expect(failed).toMatchObject({ tokenStatus: 404 });
    const made = fake.requests.slice(before);
    expect(made.length).toBeGreaterThan(0);
    expect(made.every((r) => r.operation === TOKENS && r.status === 404)).toBe(true);
  });

  it("fails once, without retrying the call, when GitHub fails the token request (5xx)", async () => {
    fake.faults.push({ method: "POST", path: /\/access_tokens$/, status: 502 });
    const before = fake.requests.length;
    const failed = await portFor(fake.installationId("acme"))
      .readFile({ path: ".github/naruto.yml", ref: "main" })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(failed).toBeInstanceOf(TokenUnavailableError);
    expect(failed).toMatchObject({ tokenStatus: 502 });
    expect(fake.requests.slice(before).map((r) => [r.operation, r.status])).toEqual([[TOKENS, 502]]);
  });
});
