/**
 * The endpoints an agent was given (SandboxRun.reach): the URLs its model calls go to, read from
 * the environment the agent gets. Every preset names its endpoint variables so that this one
 * rule finds them, and a profile of one's own gets the same: a variable whose name ends in
 * `_BASE_URL` or `_API_BASE` (ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL, OPENAI_API_BASE,
 * OLLAMA_API_BASE, …), and a proxy (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, either case). Codex
 * reads no such variable: its gateway is a model provider's `base_url` in
 * `$CODEX_HOME/config.toml`, read from there (the user's file, passed with `read:`).
 *
 * In its own network the sandbox carries an endpoint on this machine or its LAN in, that
 * host:port alone (src/sandbox/reach.ts).
 */
import { open } from "node:fs/promises";
import { join } from "node:path";
import { constants } from "node:fs";

/** The variables that hold an endpoint's URL. */
export const ENDPOINT_VARIABLE = /(_BASE_URL|_API_BASE|^(HTTPS|HTTP|ALL)_PROXY)$/i;

/** Codex's config.toml is small; a bigger file is not read. */
const CONFIG_LIMIT = 256 * 1024;

/** The endpoint URLs of `env` (the agent's own environment). */
export async function agentEndpoints(env: Readonly<Record<string, string>>): Promise<string[]> {
  const urls = Object.entries(env)
    .filter(([name, value]) => ENDPOINT_VARIABLE.test(name) && value.trim() !== "")
    .map(([, value]) => value.trim());
  const codexHome = env.CODEX_HOME;
  if (codexHome !== undefined && codexHome !== "") urls.push(...codexBaseUrls(await readSmall(join(codexHome, "config.toml"))));
  return [...new Set(urls)];
}

/** The `base_url = "…"` values of a Codex config.toml (TOML basic or literal strings). */
export function codexBaseUrls(toml: string): string[] {
  const found: string[] = [];
  for (const match of toml.matchAll(/^\s*base_url\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/gm)) {
    const value = match[2] ?? unescaped(match[1] ?? "");
    if (value !== null && value !== "") found.push(value);
  }
  return found;
}

/** A TOML basic string's body; null for an escape JSON does not share (`\\e`, `\\U…`): no URL holds one. */
function unescaped(body: string): string | null {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return null;
  }
}

async function readSmall(path: string): Promise<string> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (file === null) return "";
  try {
    const info = await file.stat();
    if (!info.isFile() || info.size > CONFIG_LIMIT) return "";
    return (await file.readFile()).toString("utf8");
  } catch {
    return "";
  } finally {
    await file.close();
  }
}
