import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/index.ts";
import { AGENT_CHOICES } from "./agent-setup.ts";
import { configText } from "./config-text.ts";

/** The file with its commented keys switched on, but those that show an example (a profile, a verify command, a cost cap). */
const uncommented = (text: string) =>
  text
    .split("\n")
    .filter((line) => !/^# {2}quick:|^# {4}(command|timeout|env|network):|max_cost_usd|verify:/.test(line))
    .map((line) => line.replace(/^#(?=[a-z_]+:| {2}[a-z_]+:)/, ""))
    .join("\n");

describe("the .github/naruto.yml naruto init writes", () => {
  it.each(AGENT_CHOICES)("for %s is a valid config that runs that agent", (agent) => {
    const loaded = loadConfig(configText({ agent, command: agent === "command" ? "./scripts/agent.sh --fast" : null }));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const profile = loaded.config.agents["default"];
    if (agent === "command") expect(profile?.command).toBe("./scripts/agent.sh --fast");
    else expect(profile?.preset).toBe(agent);
  });

  it("shows every other key at its default: switched on, they change nothing", () => {
    const text = configText({ agent: "codex", command: null });
    const plain = loadConfig(text);
    const switchedOn = loadConfig(uncommented(text));
    if (!plain.ok || !switchedOn.ok) throw new Error(JSON.stringify([plain.ok || plain.errors, switchedOn.ok || switchedOn.errors]));
    expect(uncommented(text)).toContain("\nlimits:\n  max_parallel: 4");
    expect(switchedOn.config).toEqual(plain.config);
  });
});
