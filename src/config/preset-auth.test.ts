import { describe, expect, it } from "vitest";
import { authVariableNames, formatFix, PRESET_AUTH } from "./preset-auth.ts";
import { PRESET_NAMES, PRESETS } from "./presets.ts";

describe("PRESET_AUTH", () => {
  it.each(PRESET_NAMES)("%s: every variable that gives it credentials is one its preset passes", (name) => {
    expect(authVariableNames(PRESET_AUTH[name]).filter((v) => !PRESETS[name].env.includes(v))).toEqual([]);
  });

  it.each(PRESET_NAMES)("%s: passes the proxy variables, in both spellings", (name) => {
    for (const v of ["HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"]) expect(PRESETS[name].env).toContain(v);
  });

  it("lines up the commands that fix missing credentials", () => {
    expect(formatFix(PRESET_AUTH.claude).split("\n")).toEqual([
      "  export ANTHROPIC_API_KEY=sk-ant-…   an API key (console.anthropic.com)",
      "  claude setup-token                  then export CLAUDE_CODE_OAUTH_TOKEN=<the token it prints>: your Claude subscription, a token valid for a year",
      "  naruto run --login …                this machine's Claude Code login (`login: true` in the profile; docs/agents.md)",
    ]);
  });
});
