/**
 * The credentials of the `leaky` fake agent (test/support/agents/leaky.mjs) and a check that
 * none of them, nor a piece of one, shows in a text: a comment, a log, a report, a stored mission.
 */
import { readFileSync } from "node:fs";

interface LeakyValues {
  readonly anthropicEnv: string;
  readonly anthropic: string;
  readonly ghsLong: string;
  readonly ghsClassic: string;
  readonly githubPat: string;
  readonly openai: string;
  readonly awsKeyId: string;
  readonly awsSecret: string;
  readonly setting: string;
}

export const LEAKY: LeakyValues = JSON.parse(readFileSync(new URL("./agents/leaky-values.json", import.meta.url), "utf8")) as LeakyValues;

/** The environment the leaky agent gets its own secrets from (its profile allowlists both names). */
export const LEAKY_ENV = { ANTHROPIC_API_KEY: LEAKY.anthropicEnv, ACME_SETTING: LEAKY.setting } as const;

/** Every secret the leaky agent prints, in every form it prints it, by name. */
export function leakySecrets(): Record<string, string> {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  return {
    ...LEAKY,
    "anthropicEnv (base64)": b64(LEAKY.anthropicEnv),
    "setting (base64)": b64(LEAKY.setting),
    "setting (hex)": Buffer.from(LEAKY.setting).toString("hex"),
  };
}

const WINDOW = 16;

/**
 * The secrets of which some 16 characters show in `text` (read as rendered markdown: escapes
 * and zero-width spaces taken out first), as they are or with whitespace between them (a line
 * break, a space, `\n` in JSON): a secret cut short, or cut in pieces, leaks too.
 */
export function leaksIn(text: string, secrets: Record<string, string> = leakySecrets()): string[] {
  const plain = text.replace(/&#8203;|\u200b/g, "").replace(/\\([\\`*_[\]|~])/g, "$1");
  const joined = plain.replace(/\s+|(?:\\[nrt])+/g, "");
  return Object.entries(secrets)
    .filter(([, secret]) => {
      for (let i = 0; i + WINDOW <= secret.length; i++)
        if (plain.includes(secret.slice(i, i + WINDOW)) || joined.includes(secret.slice(i, i + WINDOW))) return true;
      return false;
    })
    .map(([name]) => name);
}
