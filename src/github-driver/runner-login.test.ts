import { describe, expect, it } from "vitest";
import { loadConfig, type Config } from "../config/index.ts";
import { loginOnRunner } from "./runner-login.ts";

function config(text: string): Config {
  const loaded = loadConfig(text);
  if (!loaded.ok) throw new Error("invalid config");
  return loaded.config;
}

describe("loginOnRunner", () => {
  it("says nothing when no profile asks for a login, whatever else is configured", () => {
    expect(loginOnRunner(config("agents: { default: { preset: claude }, other: { command: ./run.sh } }"), ".github/naruto.yml")).toBeNull();
  });

  it("names every profile that asks for a login, and per CLI the secret that stands in for it on a runner", () => {
    const refusal = loginOnRunner(
      config("agents: { default: { preset: claude, login: true }, plain: { preset: claude }, gem: { preset: gemini, login: true } }"),
      ".github/naruto.yml",
    );
    expect(refusal).toMatch(/^the default agent \(Claude Code\), agent profile "gem" \(Gemini CLI\) have `login: true` in \.github\/naruto\.yml/);
    expect(refusal).not.toContain('"plain"');
    expect(refusal).toContain("- the default agent (Claude Code): `CLAUDE_CODE_OAUTH_TOKEN` for your Claude subscription (`claude setup-token`");
    expect(refusal).toContain('- agent profile "gem" (Gemini CLI): `GEMINI_API_KEY`');
    expect(refusal).toContain("`plan-env`, `work-env` and `review-env` blocks of .github/workflows/naruto.yml");
  });
});
