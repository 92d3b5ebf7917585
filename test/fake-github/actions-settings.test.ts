/**
 * A repository's Actions settings, as `naruto doctor` reads them: secret names (never values),
 * variables, the organisation's shared ones, and whether Actions may create pull requests.
 * GitHub keeps these on admin-only settings pages; an installation needs the matching
 * permission.
 */
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeGitHub, type FakeGitHub } from "../support/fake-github/index.ts";

let fake: FakeGitHub;
let admin: Octokit;
let writer: Octokit;
const repo = { owner: "acme", repo: "demo" };

beforeAll(async () => {
  fake = await startFakeGitHub();
  const adminToken = fake.addUser("octo-admin", { permission: "admin" }).token;
  const writerToken = fake.addUser("octo-writer", { permission: "write" }).token;
  await fake.createRepo({ owner: "acme", name: "demo", files: { "README.md": "# demo\n" } });
  admin = new Octokit({ auth: adminToken, baseUrl: fake.apiUrl });
  writer = new Octokit({ auth: writerToken, baseUrl: fake.apiUrl });
});
afterAll(async () => {
  fake.assertNoViolations();
  await fake.close();
});

describe("the Actions settings of a repository", () => {
  it("start empty, with Actions not allowed to create pull requests", async () => {
    expect((await admin.rest.actions.listRepoSecrets(repo)).data).toEqual({ total_count: 0, secrets: [] });
    expect((await admin.rest.actions.listRepoVariables(repo)).data).toEqual({ total_count: 0, variables: [] });
    expect((await admin.rest.actions.getGithubActionsDefaultWorkflowPermissionsRepository(repo)).data).toEqual({
      default_workflow_permissions: "read",
      can_approve_pull_request_reviews: false,
    });
  });

  it("list secret names in upper case, never a value, and the organisation's apart", async () => {
    fake.setActionsSettings({
      repo: "acme/demo",
      secrets: ["anthropic_api_key", "B_KEY"],
      orgSecrets: ["SHARED"],
      variables: { NARUTO_BOT_LOGIN: "naruto[bot]" },
      canApprovePullRequestReviews: true,
    });
    const secrets = (await admin.rest.actions.listRepoSecrets(repo)).data;
    expect(secrets.total_count).toBe(2);
    expect(secrets.secrets.map((s) => Object.keys(s).sort())).toEqual([
      ["created_at", "name", "updated_at"],
      ["created_at", "name", "updated_at"],
    ]);
    expect(secrets.secrets.map((s) => s.name)).toEqual(["ANTHROPIC_API_KEY", "B_KEY"]);
    expect((await admin.rest.actions.listRepoOrganizationSecrets(repo)).data.secrets.map((s) => s.name)).toEqual(["SHARED"]);
    expect((await admin.rest.actions.listRepoVariables(repo)).data.variables).toMatchObject([{ name: "NARUTO_BOT_LOGIN", value: "naruto[bot]" }]);
    expect((await admin.rest.actions.getGithubActionsDefaultWorkflowPermissionsRepository(repo)).data.can_approve_pull_request_reviews).toBe(true);
    fake.setActionsSettings({ repo: "acme/demo", removeSecrets: ["B_KEY"], removeVariables: ["NARUTO_BOT_LOGIN"] });
    expect((await admin.rest.actions.listRepoSecrets(repo)).data.secrets.map((s) => s.name)).toEqual(["ANTHROPIC_API_KEY"]);
    expect((await admin.rest.actions.listRepoVariables(repo)).data.total_count).toBe(0);
  });

  it("are an admin's to read: a writer gets 403", async () => {
    for (const read of [
      () => writer.rest.actions.listRepoSecrets(repo),
      () => writer.rest.actions.listRepoVariables(repo),
      () => writer.rest.actions.getGithubActionsDefaultWorkflowPermissionsRepository(repo),
    ]) {
      await expect(read()).rejects.toMatchObject({ status: 403 });
    }
  });

  it("need the matching permission of an installation", async () => {
    const without = new Octokit({ auth: fake.issueAppToken({ owner: "acme", permissions: { contents: "read" } }).token, baseUrl: fake.apiUrl });
    await expect(without.rest.actions.listRepoSecrets(repo)).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining("Resource not accessible by integration"),
    });
    fake.setInstallation("acme", { metadata: "read", contents: "read", secrets: "read", actions_variables: "read", administration: "read" });
    const reader = new Octokit({
      auth: fake.issueAppToken({ owner: "acme", permissions: { secrets: "read", actions_variables: "read", administration: "read" } }).token,
      baseUrl: fake.apiUrl,
    });
    expect((await reader.rest.actions.listRepoSecrets(repo)).status).toBe(200);
    expect((await reader.rest.actions.listRepoVariables(repo)).status).toBe(200);
    expect((await reader.rest.actions.getGithubActionsDefaultWorkflowPermissionsRepository(repo)).status).toBe(200);
  });
});
