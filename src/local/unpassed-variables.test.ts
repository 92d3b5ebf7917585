import { describe, expect, it } from "vitest";
import { loadConfig, type Config } from "../config/index.ts";
import { unpassedVariables } from "./unpassed-variables.ts";

function config(text: string): Config {
  const loaded = loadConfig(text);
  if (!loaded.ok) throw new Error("invalid config");
  return loaded.config;
}

describe("unpassedVariables", () => {
  it("names a vendor variable the profile does not pass, with the env: that passes it", () => {
    const lines = unpassedVariables(config("agents: { default: { preset: claude } }"), ["default"], {
      ANTHROPIC_SPECIAL_BASE_URL: "https://gw.example",
      HOME: "/h",
      OPENAI_BASE_URL: "x",
    });
    expect(lines).toEqual([
      "ANTHROPIC_SPECIAL_BASE_URL is set here, but the default agent (Claude Code) does not get it: pass it with env: in .github/naruto.yml — agents: { default: { preset: claude, env: [ANTHROPIC_SPECIAL_BASE_URL] } }",
    ]);
  });

  it("says nothing of what the preset passes: the gateway address, the proxies", () => {
    expect(
      unpassedVariables(config("agents: { default: { preset: claude } }"), ["default"], {
        ANTHROPIC_BASE_URL: "https://gw.example",
        HTTPS_PROXY: "http://proxy:3128",
        NO_PROXY: "localhost",
      }),
    ).toEqual([]);
  });

  it("says nothing of a variable the profile passes itself", () => {
    expect(
      unpassedVariables(config("agents: { default: { preset: gemini, env: [GEMINI_OTHER_BASE_URL] } }"), ["default"], { GEMINI_OTHER_BASE_URL: "x" }),
    ).toEqual([]);
  });

  it("tells what Codex reads instead of a variable it does not read", () => {
    expect(unpassedVariables(config("agents: { default: { preset: codex } }"), ["default"], { OPENAI_BASE_URL: "https://gw.example" })).toEqual([
      "the default agent (Codex CLI): OPENAI_BASE_URL is set, but Codex does not read it: a gateway is a model provider in its config.toml (CODEX_HOME, passed by the preset; docs/agents.md)",
    ]);
  });
});
