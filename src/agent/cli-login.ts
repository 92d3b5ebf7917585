/**
 * A CLI's login on this machine, shown to its agent (`login: true`): naruto copies the login
 * file into the agent's private HOME, where the CLI looks for it, and never shows the folder it
 * lives in. A copy, not the file: whatever the CLI writes there stays in the sandbox.
 *
 * A copy is only safe when nothing the CLI does with it can cost the user the login they keep
 * here. Claude Code and Codex rotate their refresh token on each refresh (the old one stops
 * working), so a refresh inside the sandbox would log the user out here: their copy goes without
 * the refresh token, and an access token that would expire before an attempt could end is
 * refused, saying how to refresh it. Google does not rotate Gemini CLI's refresh token: its copy
 * is whole, and the CLI refreshes as it needs. docs/agents.md has the measurements.
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { LoginFiles } from "../config/index.ts";

export type LoginCopy =
  | {
      readonly ok: true;
      /** Paths relative to the agent's HOME, and their text. */
      readonly files: readonly { readonly path: string; readonly text: string }[];
      /** When its access token expires (ms since the epoch); null: the CLI refreshes it itself, or it has none (a key). */
      readonly validUntil: number | null;
      /** The login file it was made from. */
      readonly source: string;
    }
  | { readonly ok: false; readonly why: string };

/** Codex refreshes a login whose access token carries no expiry this long after its last refresh. */
const CODEX_REFRESH_DAYS = 8;
/** Claude Code refreshes this long before its access token expires. */
const CLAUDE_REFRESH_MARGIN_MS = 5 * 60_000;
const LOGIN_FILE_LIMIT = 1024 * 1024;

/** Where `login`'s file is on this machine. */
export function loginPath(login: LoginFiles, env: Readonly<Record<string, string | undefined>>): string {
  const named = login.dirVariable === null ? undefined : env[login.dirVariable];
  if (named) return join(named, login.file);
  const home = (login.underVariable === undefined ? undefined : env[login.underVariable]) || env.HOME || "/";
  return join(home, login.homeDir, login.file);
}

/**
 * The copy of `login` an agent gets, or why there is none: the CLI is not logged in here, its
 * file is not one naruto can read, or its access token expires within `validForMs`.
 */
export async function readLogin(input: {
  readonly login: LoginFiles;
  readonly cli: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: Date;
  readonly validForMs: number;
}): Promise<LoginCopy> {
  const { login, cli } = input;
  const source = loginPath(login, input.env);
  const text = await readFile(source, "utf8").catch(() => null);
  if (text === null) return { ok: false, why: `${cli} is not logged in on this machine (there is no ${source}): log it in with \`${login.signIn}\`` };
  if (text.length > LOGIN_FILE_LIMIT) return { ok: false, why: `${source} is larger than a login file (${text.length} bytes)` };
  const copy = safeCopy(login.kind, text, input.now);
  if (!copy.ok) return { ok: false, why: `${source}: ${copy.why}` };
  if (copy.validUntil !== null && copy.validUntil - (copy.margin ?? 0) - input.now.getTime() < input.validForMs) {
    const left = copy.validUntil - input.now.getTime();
    const when =
      left <= 0
        ? `expired at ${new Date(copy.validUntil).toISOString()}`
        : `expires at ${new Date(copy.validUntil).toISOString()}, in ${Math.floor(left / 60_000)} min`;
    return {
      ok: false,
      why:
        `${cli}'s login here has an access token that ${when}, before an attempt could end (it may take ${Math.ceil(input.validForMs / 60_000)} min). ` +
        `naruto never gives an agent the refresh token: ${cli} replaces it on each refresh, so a refresh inside the sandbox would log you out here. ` +
        `Use ${cli} once on this machine (any prompt) so that it refreshes its login, then run naruto again`,
    };
  }
  const extras: { path: string; text: string }[] = [];
  for (const name of login.extras) {
    const extra = await readFile(join(source, "..", name), "utf8").catch(() => null);
    if (extra !== null && extra.length <= LOGIN_FILE_LIMIT) extras.push({ path: join(login.target, name), text: extra });
  }
  return {
    ok: true,
    files: [
      { path: join(login.target, login.file), text: copy.text },
      ...extras,
      ...copy.more.map((m) => ({ path: join(login.target, m.name), text: m.text })),
    ],
    validUntil: copy.validUntil,
    source,
  };
}

/** Writes the copy into the agent's private HOME (folders 0700, files 0600). */
export async function placeLogin(copy: Extract<LoginCopy, { ok: true }>, home: string, keep: ReadonlySet<string> = new Set()): Promise<void> {
  for (const file of copy.files) {
    if (keep.has(file.path)) continue;
    const path = join(home, file.path);
    await mkdir(join(path, ".."), { recursive: true, mode: 0o700 });
    await writeFile(path, file.text, { mode: 0o600 });
    await chmod(path, 0o600);
  }
}

type Copy =
  | {
      readonly ok: true;
      readonly text: string;
      readonly validUntil: number | null;
      /** How long before `validUntil` the CLI already wants to refresh. */
      readonly margin?: number;
      readonly more: readonly { name: string; text: string }[];
    }
  | { readonly ok: false; readonly why: string };

/** The login file as its agent gets it (pure). */
export function safeCopy(kind: LoginFiles["kind"], text: string, now: Date): Copy {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, why: "not JSON: log in again" };
  }
  if (!isRecord(json)) return { ok: false, why: "not a login naruto knows: log in again" };
  switch (kind) {
    case "claude": {
      const oauth = json.claudeAiOauth;
      if (!isRecord(oauth) || typeof oauth.accessToken !== "string" || oauth.accessToken === "")
        return { ok: false, why: "holds no Claude login (claudeAiOauth.accessToken): log in with `claude auth login`" };
      const { refreshToken: _r, refreshTokenExpiresAt: _e, ...rest } = oauth;
      const expires = typeof oauth.expiresAt === "number" ? oauth.expiresAt : null;
      return { ok: true, text: JSON.stringify({ ...json, claudeAiOauth: rest }), validUntil: expires, margin: CLAUDE_REFRESH_MARGIN_MS, more: [] };
    }
    case "codex": {
      const tokens = json.tokens;
      if (!isRecord(tokens)) {
        // A key stored by `codex login --with-api-key`: nothing to refresh.
        if (typeof json.OPENAI_API_KEY === "string" && json.OPENAI_API_KEY !== "") return { ok: true, text, validUntil: null, more: [] };
        return { ok: false, why: "holds neither a ChatGPT login nor an API key: log in with `codex login`" };
      }
      if (typeof tokens.access_token !== "string" || tokens.access_token === "") return { ok: false, why: "holds no access token: log in with `codex login`" };
      const exp = jwtExpiry(tokens.access_token);
      const last = typeof json.last_refresh === "string" ? Date.parse(json.last_refresh) : Number.NaN;
      const validUntil = exp ?? (Number.isFinite(last) ? last + CODEX_REFRESH_DAYS * 86_400_000 : now.getTime());
      return { ok: true, text: JSON.stringify({ ...json, tokens: { ...tokens, refresh_token: "" } }), validUntil, more: [] };
    }
    case "gemini": {
      if (typeof json.refresh_token !== "string" && typeof json.access_token !== "string")
        return { ok: false, why: "holds no Google login: log in by running `gemini` and choosing Login with Google" };
      // Its settings must choose that login; a user's own settings (GEMINI_CLI_HOME) replace these.
      return {
        ok: true,
        text,
        validUntil: null,
        more: [{ name: "settings.json", text: `${JSON.stringify({ security: { auth: { selectedType: "oauth-personal" } } }, null, 2)}\n` }],
      };
    }
  }
}

/** A JWT's `exp`, in ms; null when it has none or is not a JWT. */
export function jwtExpiry(token: string): number | null {
  const payload = token.split(".")[1];
  if (payload === undefined) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    return isRecord(claims) && typeof claims.exp === "number" ? claims.exp * 1000 : null;
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
