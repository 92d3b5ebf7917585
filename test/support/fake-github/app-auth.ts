/**
 * GitHub App authentication: an RS256 JWT signed with the app's private key authenticates the
 * app itself; it exchanges that for installation tokens, which expire (1 h on GitHub) and carry
 * the installation's permissions, or fewer when asked.
 */
import { createPrivateKey, createPublicKey, createSign, createVerify, generateKeyPairSync, randomBytes } from "node:crypto";
import { GitHubError, unprocessable } from "./errors.ts";
import { levelAtLeast, type Account, type AppPermissions, type World } from "./state.ts";

let generated: { privateKey: string; publicKey: string } | undefined;

/** The app's key pair: the given private key, or one generated once per process (it is slow). */
export function appKeyPair(privateKey?: string): { privateKey: string; publicKey: string } {
  if (privateKey !== undefined) {
    const publicKey = createPublicKey(createPrivateKey(privateKey)).export({ type: "spki", format: "pem" }).toString();
    return { privateKey, publicKey };
  }
  generated ??= generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return generated;
}

const b64url = (data: Buffer | string): string => Buffer.from(data).toString("base64url");

/** Signs an app JWT the way @octokit/auth-app does: iat 30 s in the past, exp 10 min after iat. */
export function signAppJwt(input: { appId: number; privateKey: string; nowMs: number }): string {
  const iat = Math.floor(input.nowMs / 1000) - 30;
  const head = `${b64url(JSON.stringify({ alg: "RS256", typ: "JWT" }))}.${b64url(JSON.stringify({ iat, exp: iat + 600, iss: input.appId }))}`;
  const signature = createSign("RSA-SHA256").update(head).sign(input.privateKey);
  return `${head}.${b64url(signature)}`;
}

export function looksLikeJwt(token: string): boolean {
  return /^eyJ[\w-]*\.[\w-]+\.[\w-]+$/.test(token);
}

/** Checks an app JWT as GitHub does; throws GitHub's 401 when it is not acceptable. */
export function verifyAppJwt(world: World, jwt: string): void {
  const undecodable = new GitHubError(401, "A JSON web token could not be decoded");
  const [header = "", payload = "", signature = ""] = jwt.split(".");
  let claims: { iat?: unknown; exp?: unknown; iss?: unknown };
  try {
    const head = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { alg?: unknown };
    if (head.alg !== "RS256") throw undecodable;
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as typeof claims;
  } catch {
    throw undecodable;
  }
  const valid = createVerify("RSA-SHA256").update(`${header}.${payload}`).verify(world.app.publicKey, Buffer.from(signature, "base64url"));
  if (!valid || String(claims.iss) !== String(world.app.id)) throw undecodable;
  const now = world.now() / 1000;
  if (typeof claims.exp !== "number" || claims.exp <= now) {
    throw new GitHubError(401, "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires");
  }
  if (claims.exp - now > 600 + 60) throw new GitHubError(401, "'Expiration time' claim ('exp') is too far in the future");
  if (typeof claims.iat !== "number" || claims.iat > now + 60)
    throw new GitHubError(401, "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued");
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random token with GitHub's prefix (`ghp_` personal, `ghs_` installation). */
export function newToken(prefix: string, length: number): string {
  const bytes = randomBytes(Math.max(0, length - prefix.length));
  return prefix + [...bytes].map((b) => ALPHABET[b % ALPHABET.length]).join("");
}

export interface IssuedToken {
  readonly token: string;
  readonly expiresAt: number;
  readonly permissions: AppPermissions;
  readonly repositories: readonly string[] | null;
}

/**
 * Issues an installation token; `permissions` and `repositories` may only narrow what the
 * installation has (GitHub answers 422 otherwise).
 */
export function issueInstallationToken(
  world: World,
  input: {
    installationId: number;
    permissions?: AppPermissions;
    repositories?: readonly string[];
    lifetimeMs?: number;
    bot?: Account;
    workflowToken?: boolean;
  },
): IssuedToken {
  const installation = world.installations.get(input.installationId);
  if (installation === undefined) throw new GitHubError(404, "Not Found");
  const permissions = input.permissions ?? installation.permissions;
  for (const [name, level] of Object.entries(permissions)) {
    if (!levelAtLeast(installation.permissions[name], level)) {
      throw unprocessable("The permissions requested are not granted to this installation.");
    }
  }
  const repositories = input.repositories ?? null;
  for (const name of repositories ?? []) {
    const repo = world.repos.get(`${installation.account.login}/${name}`.toLowerCase());
    if (repo === undefined) {
      throw unprocessable("There is at least one repository that does not exist or is not accessible to the parent installation.");
    }
  }
  const token = newToken("ghs_", world.installationTokenLength);
  const expiresAt = world.now() + (input.lifetimeMs ?? world.installationTokenLifetimeMs);
  world.tokens.set(token, {
    kind: "installation",
    installationId: installation.id,
    bot: input.bot ?? world.app.bot,
    permissions,
    repositories,
    expiresAt,
    ...(input.workflowToken === true ? { workflowToken: true } : {}),
  });
  return { token, expiresAt, permissions, repositories };
}
