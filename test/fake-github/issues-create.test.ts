/** `GET /app`, and opening and listing issues: what the App learns its bot from and the sweep opens scheduled missions' issues with. */
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

describe("GET /app", () => {
  it("answers the app's JWT with its slug, and nobody else", async () => {
    const app = await api(demo.github, demo.github.appJwt())("GET", "/app");
    expect(app.status).toBe(200);
    expect(app.body).toMatchObject({ id: demo.github.app.id, slug: demo.github.app.slug });
    expect((await api(demo.github, demo.maintainer)("GET", "/app")).status).toBe(401);
  });
});

describe("issues", () => {
  it("opens an issue numbered after the existing ones, as the token's account", async () => {
    const created = await api(demo.github, demo.outsider)("POST", "/repos/acme/demo/issues", { title: "Nightly docs", body: "<!-- marker -->" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ number: 2, title: "Nightly docs", body: "<!-- marker -->", user: { login: "octo-outsider" }, state: "open" });
    const read = await api(demo.github, demo.maintainer)("GET", "/repos/acme/demo/issues/2");
    expect(field(read.body, "title")).toBe("Nightly docs");
  });

  it("refuses an issue without a title, and a token without issues: write", async () => {
    const untitled = await api(demo.github, demo.maintainer)("POST", "/repos/acme/demo/issues", { title: " " });
    expect(untitled.status).toBe(422);
    const readOnly = demo.github.issueAppToken({ owner: "acme", permissions: { issues: "read" } }).token;
    expect((await api(demo.github, readOnly)("POST", "/repos/acme/demo/issues", { title: "x" })).status).toBe(403);
  });

  it("lists issues newest first, filtered by state, creator and since", async () => {
    const bot = demo.github.issueAppToken({ owner: "acme", permissions: { issues: "write" } }).token;
    const botIssue = await api(demo.github, bot)("POST", "/repos/acme/demo/issues", { title: "By the bot" });
    const number = Number(field(botIssue.body, "number"));
    const all = await api(demo.github, demo.maintainer)("GET", "/repos/acme/demo/issues?state=all");
    const numbers = (all.body as { number: number }[]).map((i) => i.number);
    expect(numbers[0]).toBe(number);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    const byBot = await api(demo.github, demo.maintainer)(
      "GET",
      `/repos/acme/demo/issues?creator=${encodeURIComponent(String(field(field(botIssue.body, "user"), "login")))}`,
    );
    expect((byBot.body as { number: number }[]).map((i) => i.number)).toEqual([number]);
    const future = await api(demo.github, demo.maintainer)("GET", `/repos/acme/demo/issues?since=${new Date(Date.now() + 3_600_000).toISOString()}`);
    expect(future.body).toEqual([]);
  });
});
