import { describe, expect, it } from "vitest";
import { parseAgentResult, SUMMARY_LIMIT, type AgentResult } from "./agent-result.ts";

const EMPTY: AgentResult = { summary: null, cost_usd: null, tokens_in: null, tokens_out: null, model: null, failure: null };

describe("parseAgentResult", () => {
  it("reads every field", () => {
    const text = JSON.stringify({ summary: "done", cost_usd: 0.25, tokens_in: 1200, tokens_out: 300, model: "sonnet", extra: true });
    expect(parseAgentResult(text)).toEqual({
      result: { summary: "done", cost_usd: 0.25, tokens_in: 1200, tokens_out: 300, model: "sonnet", failure: null },
      notes: [],
    });
  });

  it("reads an agent's word that a retry would fail the same way, and ignores a failure it cannot name", () => {
    const said = parseAgentResult(JSON.stringify({ failure: { kind: "authentication", message: "Not logged in" } }));
    expect(said.result?.failure).toEqual({ kind: "authentication", message: "Not logged in" });
    const unknown = parseAgentResult(JSON.stringify({ failure: { kind: "bad luck" } }));
    expect(unknown.result?.failure).toBeNull();
    expect(unknown.notes[0]).toMatch(/^result field failure ignored/);
  });

  it("reads no file as no result, without a note", () => {
    expect(parseAgentResult(null)).toEqual({ result: null, notes: [] });
  });

  it.each([
    ["invalid JSON", "{summary: done", /not valid JSON/],
    ["an empty file", "", /not valid JSON/],
    ["a list", "[1]", /not a JSON object/],
    ["a string", '"done"', /not a JSON object/],
    ["null", "null", /not a JSON object/],
  ])("notes %s and keeps no result", (_, text, note) => {
    const parsed = parseAgentResult(text);
    expect(parsed.result).toBeNull();
    expect(parsed.notes).toEqual([expect.stringMatching(note)]);
  });

  it.each([
    ["cost_usd", "free"],
    ["cost_usd", -1],
    ["tokens_in", 1.5],
    ["tokens_out", "20"],
    ["model", ""],
    ["summary", 42],
  ])("drops an invalid %s (%j) with a note and keeps the rest", (field, value) => {
    const parsed = parseAgentResult(JSON.stringify({ summary: "kept", model: "m", [field]: value }));
    expect(parsed.notes).toEqual([expect.stringContaining(`result field ${field} ignored`)]);
    expect(parsed.result?.[field as keyof AgentResult]).toBeNull();
  });

  it("treats null fields as absent and cuts a long summary", () => {
    expect(parseAgentResult('{"summary":null,"model":null}')).toEqual({ result: EMPTY, notes: [] });
    const long = parseAgentResult(JSON.stringify({ summary: "x".repeat(SUMMARY_LIMIT + 10) }));
    expect(long.result?.summary).toHaveLength(SUMMARY_LIMIT + 1);
  });
});
