import { describe, expect, it } from "vitest";
import { DRIVERS } from "../../scripts/agents-check/drivers.ts";
import { PRESETS } from "../config/index.ts";
import { AGENT_CHOICES, AGENT_SETUP, inferAgent, PINNED, presetAllows } from "./agent-setup.ts";

describe("what naruto init installs and passes for each agent", () => {
  it("pins the versions npm run agents-check runs naruto's presets against", () => {
    for (const driver of DRIVERS) expect(PINNED[driver.name]).toEqual({ package: driver.pkg, version: driver.version });
  });

  it.each(AGENT_CHOICES.filter((c) => c !== "command"))("passes %s only keys its preset lets through to the agent", (choice) => {
    expect(AGENT_SETUP[choice].secrets.length).toBeGreaterThan(0);
    for (const name of AGENT_SETUP[choice].secrets) expect(presetAllows(choice, name)).toBe(true);
    expect(PRESETS[choice].executables).toContain(AGENT_SETUP[choice].program);
  });

  it("takes the first agent CLI on PATH, in a fixed order, else claude", () => {
    expect(inferAgent((p) => p === "gemini" || p === "aider")).toEqual({ choice: "gemini", found: true });
    expect(inferAgent(() => false)).toEqual({ choice: "claude", found: false });
  });
});
