import { describe, expect, it } from "vitest";
import { pickScenario, turnAt, turnsOf } from "../../scripts/agents-check/script.ts";
import type { Scenario } from "../../scripts/agents-check/types.ts";

const usage = { input: 1, output: 1 };
const write = { write: { path: "a.txt", content: "A" } };

describe("how a scripted model reads a scenario", () => {
  it.each<[string, Scenario["steps"], number, ReturnType<typeof turnAt>[]]>([
    [
      "a tool step, then its final text",
      [write, { say: "bye" }],
      2,
      [
        { kind: "write", path: "a.txt", content: "A" },
        { kind: "say", text: "bye" },
      ],
    ],
    [
      "no say step: the model ends with done",
      [{ shell: "ls" }],
      2,
      [
        { kind: "shell", command: "ls" },
        { kind: "say", text: "done" },
      ],
    ],
    ["a say step ends the conversation: later steps are never played", [{ say: "early" }, write], 1, [{ kind: "say", text: "early" }]],
  ])("%s", (_, steps, turns, played) => {
    const scenario: Scenario = { match: "m", steps, usage };
    expect(turnsOf(scenario)).toBe(turns);
    expect(Array.from({ length: turns }, (_, n) => turnAt(scenario, n))).toEqual(played);
    // A conversation that goes on (a CLI that asks again) keeps getting the final text.
    expect(turnAt(scenario, turns + 3)).toEqual(played.at(-1));
  });

  it("picks the scenario whose marker the prompt holds", () => {
    const a: Scenario = { match: "[a]", steps: [], usage };
    const b: Scenario = { match: "[b]", steps: [], usage };
    expect(pickScenario([a, b], "task … [b] …")).toBe(b);
    expect(pickScenario([a, b], "neither")).toBeNull();
  });
});
