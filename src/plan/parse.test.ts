import { describe, expect, it } from "vitest";
import { findFencedPlan, parsePlanText } from "./parse.ts";

const YAML_PLAN = ["version: 1", "items:", "  - id: a", "    writes: [src/a.ts]"].join("\n");
const EXPECTED = { version: 1, items: [{ id: "a", writes: ["src/a.ts"] }] };

describe("parsePlanText", () => {
  it.each([
    ["YAML", YAML_PLAN, "yaml"],
    ["JSON", JSON.stringify(EXPECTED), "json"],
    ["pretty JSON", JSON.stringify(EXPECTED, null, 2), "json"],
    ["YAML flow mapping (not JSON)", "{version: 1, items: [{id: a, writes: [src/a.ts]}]}", "yaml"],
    ["a ```naruto block in a comment", `Please do this:\n\n\`\`\`naruto\n${YAML_PLAN}\n\`\`\`\n\nThanks!`, "markdown"],
    ["a ~~~naruto block", `~~~naruto\n${YAML_PLAN}\n~~~`, "markdown"],
    ["JSON in a ```naruto block", `\`\`\`naruto\n${JSON.stringify(EXPECTED)}\n\`\`\``, "markdown"],
    ["an indented fence", `  \`\`\`naruto\n  ${YAML_PLAN.split("\n").join("\n  ")}\n  \`\`\``, "markdown"],
    ["CRLF line endings", `\`\`\`naruto\r\n${YAML_PLAN.split("\n").join("\r\n")}\r\n\`\`\`\r\n`, "markdown"],
    ["an info string with more words", `\`\`\`naruto yaml\n${YAML_PLAN}\n\`\`\``, "markdown"],
  ])("reads %s", (_name, text, format) => {
    const result = parsePlanText(text);
    expect(result).toEqual({ ok: true, raw: EXPECTED, format });
  });

  it("takes the FIRST naruto block and skips other code blocks", () => {
    const text = [
      "```yaml",
      "version: 1",
      "items: [{id: not-this, writes: [x]}]",
      "```",
      "````markdown",
      "```naruto",
      "items: [{id: nor-this, writes: [x]}]",
      "```",
      "````",
      "```naruto",
      YAML_PLAN,
      "```",
      "```naruto",
      "items: [{id: second, writes: [x]}]",
      "```",
    ].join("\n");
    expect(parsePlanText(text)).toEqual({ ok: true, raw: EXPECTED, format: "markdown" });
  });

  it("reads a longer fence whose plan holds ``` lines", () => {
    const text = ["````naruto", "items:", "  - id: a", "    writes: [x]", "    prompt: |", "      ```ts", "      code()", "      ```", "````"].join("\n");
    const result = parsePlanText(text);
    expect(result).toEqual({ ok: true, format: "markdown", raw: { items: [{ id: "a", writes: ["x"], prompt: "```ts\ncode()\n```\n" }] } });
  });

  it.each([
    ["a comment around the block", `<!--\n\`\`\`naruto\nitems: [{id: hidden, writes: [x]}]\n\`\`\`\n-->\n\`\`\`naruto\n${YAML_PLAN}\n\`\`\``],
    ["a comment that ends on its first line", `<!-- note -->\n\`\`\`naruto\n${YAML_PLAN}\n\`\`\``],
    ["a comment ending mid-line", `  <!-- a\n\`\`\`naruto\nitems: []\n\`\`\`\nb --> text\n\`\`\`naruto\n${YAML_PLAN}\n\`\`\``],
  ])("never takes a block hidden in an HTML comment: %s", (_name, text) => {
    expect(parsePlanText(text)).toEqual({ ok: true, raw: EXPECTED, format: "markdown" });
  });

  it("finds nothing when the only block is hidden in an unclosed comment", () => {
    expect(findFencedPlan(`<!--\n\`\`\`naruto\n${YAML_PLAN}\n\`\`\``)).toBeNull();
  });

  it("does not take a quoted block for the plan", () => {
    expect(findFencedPlan(`> \`\`\`naruto\n> ${YAML_PLAN}\n> \`\`\``)).toBeNull();
  });

  it("runs an unclosed block to the end of the text, as CommonMark does", () => {
    expect(findFencedPlan(`intro\n\`\`\`naruto\n${YAML_PLAN}\n`)).toEqual({ body: `${YAML_PLAN}\n`, line: 3 });
  });

  it.each([
    ["a YAML syntax error", "version: 1\nitems:\n  - id: a\n    writes: [x\n", "line 5, column 1"],
    ["a duplicate key", "version: 1\nversion: 1\nitems: []", "line 2, column 1: Map keys must be unique"],
    ["tabs as indentation", "items:\n\t- id: a", "line 2"],
    ["broken JSON", '{ "version": 1,\n  "items": [ }', "line 2"],
    ["two YAML documents", "a: 1\n---\nb: 2\n", "multiple documents"],
    ["empty text", "  \n", "the plan is empty"],
    ["prose", "please fix the bug", "no plan found"],
    ["markdown without a naruto block", "Do it:\n```yaml\nx: [\n```\n", "none of the fenced code blocks"],
  ])("reports %s as an error, without throwing", (_name, text, message) => {
    const result = parsePlanText(text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors[0]).toMatchObject({ item: null, index: null, field: "" });
      expect(result.errors.map((e) => e.message).join("\n")).toContain(message);
    }
  });

  it("counts lines of an error inside a block from the top of the markdown", () => {
    const text = ["# Task", "", "Text.", "", "```naruto", "version: 1", "items:", "  - id: a", "    writes: [x", "```"].join("\n");
    const result = parsePlanText(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]?.message).toMatch(/^line 9, column 15: /);
  });

  it("refuses YAML alias bombs", () => {
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      ...Array.from({ length: 8 }, (_, i) => {
        const prev = String.fromCharCode(97 + i);
        const next = String.fromCharCode(98 + i);
        return `${next}: &${next} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`;
      }),
    ].join("\n");
    const result = parsePlanText(bomb);
    expect(result.ok).toBe(false);
  });
});
