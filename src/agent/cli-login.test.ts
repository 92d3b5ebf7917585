import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PRESET_AUTH } from "../config/index.ts";
import { jwtExpiry, loginPath, placeLogin, readLogin, safeCopy } from "./cli-login.ts";

const NOW = new Date("2026-12-01T12:00:00Z");
const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.sig`;

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe("safeCopy: what an agent gets of a login", () => {
  it("claude: everything but the refresh token, which Claude Code replaces on each refresh", () => {
    const text = JSON.stringify({
      claudeAiOauth: {
        accessToken: "at",
        refreshToken: "rt",
        refreshTokenExpiresAt: 1,
        expiresAt: NOW.getTime() + 3600_000,
        scopes: ["user:inference"],
        subscriptionType: "max",
      },
      other: 1,
    });
    const copy = safeCopy("claude", text, NOW);
    expect(copy).toMatchObject({ ok: true, validUntil: NOW.getTime() + 3600_000 });
    if (!copy.ok) return;
    expect(JSON.parse(copy.text)).toEqual({
      claudeAiOauth: { accessToken: "at", expiresAt: NOW.getTime() + 3600_000, scopes: ["user:inference"], subscriptionType: "max" },
      other: 1,
    });
  });

  it("codex: a ChatGPT login with its refresh token emptied, valid until its access token's exp", () => {
    const access = jwt({ exp: NOW.getTime() / 1000 + 86400 });
    const copy = safeCopy(
      "codex",
      JSON.stringify({
        auth_mode: "chatgpt",
        tokens: { access_token: access, refresh_token: "rt", id_token: "x", account_id: "a" },
        last_refresh: NOW.toISOString(),
      }),
      NOW,
    );
    expect(copy).toMatchObject({ ok: true, validUntil: NOW.getTime() + 86400_000 });
    if (copy.ok) expect(JSON.parse(copy.text).tokens).toEqual({ access_token: access, refresh_token: "", id_token: "x", account_id: "a" });
  });

  it("codex: a stored API key is copied as it is, with nothing to expire", () => {
    const text = JSON.stringify({ OPENAI_API_KEY: "sk-x", tokens: null });
    expect(safeCopy("codex", text, NOW)).toEqual({ ok: true, text, validUntil: null, more: [] });
  });

  it("codex: without an exp, valid until Codex's own 8 days after its last refresh", () => {
    const copy = safeCopy("codex", JSON.stringify({ tokens: { access_token: "opaque", refresh_token: "rt" }, last_refresh: NOW.toISOString() }), NOW);
    expect(copy).toMatchObject({ ok: true, validUntil: NOW.getTime() + 8 * 86400_000 });
  });

  it("gemini: whole (Google does not rotate its refresh token), with settings that choose that login", () => {
    const text = JSON.stringify({ access_token: "at", refresh_token: "rt", expiry_date: 1 });
    const copy = safeCopy("gemini", text, NOW);
    expect(copy).toMatchObject({ ok: true, text, validUntil: null });
    if (copy.ok) expect(JSON.parse(copy.more[0]?.text ?? "")).toEqual({ security: { auth: { selectedType: "oauth-personal" } } });
  });

  it.each([
    ["claude", "{}", /no Claude login/],
    ["codex", '{"tokens":{}}', /no access token/],
    ["gemini", "[]", /not a login/],
    ["claude", "not json", /not JSON/],
  ] as const)("%s refuses %s", (kind, text, why) => {
    const copy = safeCopy(kind, text, NOW);
    expect(copy.ok).toBe(false);
    if (!copy.ok) expect(copy.why).toMatch(why);
  });

  it("reads a JWT's exp, and nothing from what is not one", () => {
    expect(jwtExpiry(jwt({ exp: 10 }))).toBe(10_000);
    expect(jwtExpiry("opaque")).toBeNull();
    expect(jwtExpiry("a.!!!.c")).toBeNull();
  });
});

describe("readLogin and placeLogin", () => {
  async function home(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "naruto-login-"));
    dirs.push(dir);
    return dir;
  }
  const claude = PRESET_AUTH.claude.login;
  if (claude === null) throw new Error("claude has a login");

  it("finds the login where the CLI keeps it: its own variable first, else under HOME", () => {
    expect(loginPath(claude, { HOME: "/home/u" })).toBe("/home/u/.claude/.credentials.json");
    expect(loginPath(claude, { HOME: "/home/u", CLAUDE_CONFIG_DIR: "/cfg" })).toBe("/cfg/.credentials.json");
    const gemini = PRESET_AUTH.gemini.login;
    if (gemini !== null) expect(loginPath(gemini, { HOME: "/home/u", GEMINI_CLI_HOME: "/g" })).toBe("/g/.gemini/oauth_creds.json");
  });

  it("says when the CLI is not logged in here, and when its access token would expire too soon", async () => {
    const h = await home();
    const read = (validForMs: number) => readLogin({ login: claude, cli: "Claude Code", env: { HOME: h }, now: NOW, validForMs });
    expect(await read(0)).toEqual({
      ok: false,
      why: `Claude Code is not logged in on this machine (there is no ${h}/.claude/.credentials.json): log it in with \`claude auth login\``,
    });
    await mkdir(join(h, ".claude"));
    await writeFile(
      join(h, ".claude", ".credentials.json"),
      JSON.stringify({ claudeAiOauth: { accessToken: "at", refreshToken: "rt", expiresAt: NOW.getTime() + 30 * 60_000 } }),
    );
    // Claude Code refreshes 5 minutes before the expiry: 25 minutes are left.
    expect((await read(20 * 60_000)).ok).toBe(true);
    const soon = await read(30 * 60_000);
    expect(soon.ok).toBe(false);
    if (!soon.ok) expect(soon.why).toContain("an access token that expires at 2026-12-01T12:30:00.000Z, in 30 min, before an attempt could end");
  });

  it("places the copy in the agent's home, readable by it alone", async () => {
    const [h, agent] = [await home(), await home()];
    await mkdir(join(h, ".claude"));
    await writeFile(join(h, ".claude", ".credentials.json"), JSON.stringify({ claudeAiOauth: { accessToken: "at", refreshToken: "rt" } }));
    const copy = await readLogin({ login: claude, cli: "Claude Code", env: { HOME: h }, now: NOW, validForMs: 0 });
    if (!copy.ok) throw new Error(copy.why);
    await placeLogin(copy, agent);
    const placed = join(agent, ".claude", ".credentials.json");
    expect(JSON.parse(await readFile(placed, "utf8"))).toEqual({ claudeAiOauth: { accessToken: "at" } });
    expect((await stat(placed)).mode & 0o777).toBe(0o600);
  });
});
