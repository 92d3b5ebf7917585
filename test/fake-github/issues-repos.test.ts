/**
 * REST shapes and status codes for repositories, contents, permissions, issues, comments and
 * reactions, at `/` and at `/api/v3/`, with GitHub's answers for bad or weak credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, field, startDemo, type Demo } from "./helpers.ts";

let demo: Demo;

beforeAll(async () => {
  demo = await startDemo();
});
afterAll(async () => {
  demo.github.assertNoViolations();
  await demo.github.close();
});

describe("repositories and access", () => {
  it("answers at / and at /api/v3 with the repository, its permissions and links", async () => {
    const root = await api(demo.github, demo.maintainer, { base: demo.github.url })("GET", "/repos/acme/demo");
    const ghes = await api(demo.github, demo.maintainer)("GET", "/repos/acme/demo");
    expect(root.status).toBe(200);
    expect(ghes.status).toBe(200);
    expect(ghes.body).toMatchObject({ full_name: "acme/demo", default_branch: "main", private: true, owner: { login: "acme", type: "Organization" } });
    expect(field(ghes.body, "permissions")).toEqual({ admin: false, maintain: false, push: true, triage: true, pull: true });
    expect(field(ghes.body, "url")).toBe(`${demo.github.apiUrl}/repos/acme/demo`);
    expect(field(root.body, "url")).toBe(`${demo.github.url}/repos/acme/demo`);
    for (const key of ["id", "node_id", "html_url"]) expect(field(ghes.body, key)).toBeTruthy();
  });

  it.each([
    ["a bad token", "ghp_wrong", 401, "Bad credentials"],
    ["no access to a private repository", "stranger", 404, "Not Found"],
    ["no token at all", undefined, 404, "Not Found"],
  ])("answers %s with %i", async (_, token, status, message) => {
    const answer = await api(demo.github, token === "stranger" ? demo.stranger : token)("GET", "/repos/acme/demo");
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ message, documentation_url: expect.stringContaining("docs.github.com"), status: String(status) });
  });

  it("accepts Bearer as well as token", async () => {
    const response = await fetch(`${demo.github.apiUrl}/repos/acme/demo`, { headers: { authorization: `Bearer ${demo.maintainer}` } });
    expect(response.status).toBe(200);
  });

  it("serves file contents as wrapped base64, directories as lists, and 404 for a missing path", async () => {
    const call = api(demo.github, demo.outsider);
    const file = await call("GET", "/repos/acme/demo/contents/README.md?ref=main");
    expect(field(file.body, "encoding")).toBe("base64");
    expect(Buffer.from(String(field(file.body, "content")), "base64").toString()).toBe("# demo\n");
    const dir = await call("GET", "/repos/acme/demo/contents/.github/workflows");
    expect((dir.body as unknown[]).map((e) => field(e, "path"))).toEqual([".github/workflows/naruto.yml"]);
    expect((await call("GET", "/repos/acme/demo/contents/nope.txt")).status).toBe(404);
  });

  it.each([
    ["octo-maintainer", "write", "write"],
    ["octo-outsider", "read", "read"],
    ["octo-stranger", "none", "none"],
  ])("reports %s's permission as %s", async (login, permission, role) => {
    const answer = await api(demo.github, demo.outsider)("GET", `/repos/acme/demo/collaborators/${login}/permission`);
    expect(answer.body).toMatchObject({ permission, role_name: role, user: { login } });
  });

  it("folds maintain into write and triage into read in `permission`, as GitHub does", async () => {
    demo.github.addUser("octo-triager", { permission: "triage" });
    demo.github.addUser("octo-keeper", { permission: "maintain" });
    const call = api(demo.github, demo.maintainer);
    expect((await call("GET", "/repos/acme/demo/collaborators/octo-triager/permission")).body).toMatchObject({ permission: "read", role_name: "triage" });
    expect((await call("GET", "/repos/acme/demo/collaborators/octo-keeper/permission")).body).toMatchObject({ permission: "write", role_name: "maintain" });
    expect((await call("GET", "/repos/acme/demo/collaborators/nobody-at-all/permission")).status).toBe(404);
  });
});

describe("issues, comments and reactions", () => {
  it("reads the seeded issue", async () => {
    const answer = await api(demo.github, demo.outsider)("GET", "/repos/acme/demo/issues/1");
    expect(answer.body).toMatchObject({ number: 1, title: "First issue", body: "Please fix", state: "open", user: { login: "octo-maintainer" } });
    expect(field(answer.body, "pull_request")).toBeUndefined();
    expect((await api(demo.github, demo.outsider)("GET", "/repos/acme/demo/issues/99")).status).toBe(404);
  });

  it("creates, edits and deletes comments; a reader may comment but not edit another's comment", async () => {
    const maintainer = api(demo.github, demo.maintainer);
    const created = await maintainer("POST", "/repos/acme/demo/issues/1/comments", { body: "hello" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ body: "hello", user: { login: "octo-maintainer" }, author_association: "COLLABORATOR" });
    const id = Number(field(created.body, "id"));
    expect(field(created.body, "html_url")).toContain(`#issuecomment-${id}`);

    const reader = api(demo.github, demo.outsider);
    expect((await reader("POST", "/repos/acme/demo/issues/1/comments", { body: "me too" })).status).toBe(201);
    expect((await reader("PATCH", `/repos/acme/demo/issues/comments/${id}`, { body: "hijack" })).status).toBe(403);

    const edited = await maintainer("PATCH", `/repos/acme/demo/issues/comments/${id}`, { body: "edited" });
    expect(field(edited.body, "body")).toBe("edited");
    expect((await maintainer("DELETE", `/repos/acme/demo/issues/comments/${id}`)).status).toBe(204);
    expect((await maintainer("GET", `/repos/acme/demo/issues/comments/${id}`)).status).toBe(404);
  });

  it("refuses a body over 65,536 characters with GitHub's 422", async () => {
    const call = api(demo.github, demo.maintainer);
    const answer = await call("POST", "/repos/acme/demo/issues/1/comments", { body: "x".repeat(65_537) });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ message: "Validation Failed", errors: [{ message: expect.stringContaining("Body is too long") }] });
    expect((await call("POST", "/repos/acme/demo/issues/1/comments", { body: "x".repeat(65_536) })).status).toBe(201);
  });

  it("pages comments with per_page/page and a Link header that leads through them", async () => {
    const github = demo.github;
    await github.createRepo({ owner: "acme", name: "paged", files: { "a.txt": "a" }, issues: [{ title: "many comments" }] });
    github.setPermission("octo-maintainer", "acme/paged", "write");
    const call = api(github, demo.maintainer);
    for (let i = 0; i < 5; i++) await call("POST", "/repos/acme/paged/issues/1/comments", { body: `c${i}` });
    const bodies: string[] = [];
    let next: string | null = `${github.apiUrl}/repos/acme/paged/issues/1/comments?per_page=2`;
    while (next !== null) {
      const response: Response = await fetch(next, { headers: { authorization: `token ${demo.maintainer}` } });
      bodies.push(...((await response.json()) as { body: string }[]).map((c) => c.body));
      next = /<([^>]+)>; rel="next"/.exec(response.headers.get("link") ?? "")?.[1] ?? null;
    }
    expect(bodies).toEqual(["c0", "c1", "c2", "c3", "c4"]);
  });

  it("answers 201 for a new reaction and 200 when the same reaction exists", async () => {
    const call = api(demo.github, demo.maintainer);
    const comment = await call("POST", "/repos/acme/demo/issues/1/comments", { body: "/naruto do it" });
    const path = `/repos/acme/demo/issues/comments/${String(field(comment.body, "id"))}/reactions`;
    const first = await call("POST", path, { content: "eyes" });
    const second = await call("POST", path, { content: "eyes" });
    expect([first.status, second.status]).toEqual([201, 200]);
    expect(field(second.body, "id")).toBe(field(first.body, "id"));
    expect((await call("POST", "/repos/acme/demo/issues/1/reactions", { content: "rocket" })).status).toBe(201);
  });

  it("lets an app token comment as its bot only with the issues permission", async () => {
    const bot = demo.github.issueAppToken({ owner: "acme" }).token;
    const created = await api(demo.github, bot)("POST", "/repos/acme/demo/issues/1/comments", { body: "tracking" });
    expect(created.body).toMatchObject({ user: { login: "naruto[bot]", type: "Bot" }, performed_via_github_app: { slug: "naruto" } });
    const limited = demo.github.issueAppToken({ owner: "acme", permissions: { contents: "read" } }).token;
    const refused = await api(demo.github, limited)("POST", "/repos/acme/demo/issues/1/comments", { body: "no" });
    expect(refused.status).toBe(403);
    expect(field(refused.body, "message")).toBe("Resource not accessible by integration");
  });
});
