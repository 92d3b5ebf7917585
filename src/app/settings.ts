/**
 * The App's settings from an environment (entry points pass `process.env`; tests pass a record):
 * Probot's own variables (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET, GHE_HOST,
 * GHE_PROTOCOL, LOG_LEVEL) go to `createProbot` unchanged; naruto's are read here.
 */
import { createProbot, type Probot } from "probot";
import { CONFIG_PATH } from "../config/index.ts";
import { secretValues } from "../redact/index.ts";
import type { AppDeps } from "./deps.ts";

export type Env = Readonly<Record<string, string | undefined>>;

export const USER_AGENT = "naruto-app/0.1";

/** Thrown before the server starts, naming what to set. */
export class AppSettingsError extends Error {
  override readonly name = "AppSettingsError";
}

export function probotFrom(env: Env): Probot {
  const missing = ["APP_ID", "WEBHOOK_SECRET"].filter((name) => !env[name]);
  if (!env["PRIVATE_KEY"] && !env["PRIVATE_KEY_PATH"]) missing.push("PRIVATE_KEY (or PRIVATE_KEY_PATH)");
  if (missing.length > 0) throw new AppSettingsError(`naruto app: set ${missing.join(", ")} (in the environment or .env; see docs/app.md)`);
  return createProbot({ env });
}

/**
 * naruto's settings. The bot login is `<slug>[bot]`: from APP_SLUG when set, else asked from
 * GitHub once (`GET /app` with the app's JWT) — a login is needed to tell naruto's own comments.
 */
export async function appDepsFrom(env: Env, probot: Probot): Promise<AppDeps> {
  let slug = env["APP_SLUG"];
  if (!slug) {
    const octokit = await probot.auth();
    const { data } = await octokit.rest.apps.getAuthenticated();
    slug = data?.slug;
  }
  if (!slug) throw new AppSettingsError("naruto app: could not learn the app's slug; set APP_SLUG");
  const tracking = milliseconds(env, "NARUTO_TRACKING_INTERVAL_MS");
  // The Action reads the same variable: spacing writes a second apart is GitHub's ask, and a
  // GitHub Enterprise Server with other limits (or a test's fake) may not need it.
  const writes = milliseconds(env, "NARUTO_GITHUB_WRITE_INTERVAL_MS");
  return {
    botLogin: `${slug}[bot]`,
    configPath: env["NARUTO_CONFIG"] || CONFIG_PATH,
    workflow: env["NARUTO_WORKFLOW"] || "naruto.yml",
    workflowName: env["NARUTO_WORKFLOW_NAME"] || "naruto",
    now: () => new Date(),
    userAgent: USER_AGENT,
    trackingIntervalMs: tracking ?? 5_000,
    secrets: secretValues({ env }),
    ...(writes === null ? {} : { client: { throttle: { writeIntervalMs: writes, notificationIntervalMs: writes } } }),
  };
}

/** A non-negative number of milliseconds from `env[name]`, or null when unset or not one. */
function milliseconds(env: Env, name: string): number | null {
  const text = env[name];
  const value = Number(text ?? "");
  return text && Number.isFinite(value) && value >= 0 ? value : null;
}
