import { describe, expect, it } from "vitest";
import { cellCode, codeSpan, inlineText, quoteBlock, safeLink, truncate } from "./escape.ts";

describe("inlineText", () => {
  it.each([
    ["plain words", "Validate users input", "Validate users input"],
    ["a mention", "@everyone look", "@&#8203;everyone look"],
    ["a team mention", "@acme/reviewers", "@&#8203;acme/reviewers"],
    ["an issue reference", "fixes #12 and acme/demo#3", "fixes #&#8203;12 and acme/demo#&#8203;3"],
    ["HTML", '<img src=x onerror="alert(1)">', '&lt;img src=x onerror="alert(1)"&gt;'],
    ["an entity", "&lt; stays text", "&amp;lt; stays text"],
    ["markdown emphasis and code", "*bold* _it_ `code` ~~gone~~", "\\*bold\\* \\_it\\_ \\`code\\` \\~\\~gone\\~\\~"],
    ["a link", "[click](https://evil.example)", "\\[click\\](https:&#8203;//evil.example)"],
    ["a bare www address", "see www.evil.example", "see www&#8203;.evil.example"],
    ["a table pipe", "a | b", "a \\| b"],
    ["line breaks and hidden characters", "one\ntwo\u200b\u202e three<!-- hidden -->", "one two three"],
    ["a heading marker", "# Title", "#&#8203; Title"],
    ["a bullet", "- item", "\\- item"],
    ["a plus bullet", "+ item", "\\+ item"],
    ["a numbered item", "1. first", "1\\. first"],
    ["a numbered item with a parenthesis", "12) first", "12\\) first"],
    ["a thematic break", "---", "\\---"],
    ["a setext underline", "===", "\\==="],
    ["a dash mid-line, kept", "a - b", "a - b"],
  ])("escapes %s", (_case, input, expected) => {
    expect(inlineText(input)).toBe(expected);
  });

  it("cuts long text before escaping, keeping whole characters", () => {
    expect(inlineText("abcdef", 4)).toBe("abc…");
    expect(truncate("ab😀cd", 4)).toBe("ab…");
  });
});

describe("quoteBlock", () => {
  it("quotes every line, escaped, with empty lines kept", () => {
    expect(quoteBlock("first @here\n\n<b>second</b>")).toBe("> first @&#8203;here\n>\n> &lt;b&gt;second&lt;/b&gt;");
  });

  it("keeps each line from becoming a list item, a rule or a heading's underline", () => {
    expect(quoteBlock("Title\n===\n- a\n2. b\n---")).toBe("> Title\n> \\===\n> \\- a\n> 2\\. b\n> \\---");
  });

  it("says so when the text is empty, and cuts many lines", () => {
    expect(quoteBlock("  ")).toBe("> (empty)");
    expect(quoteBlock("a\nb\nc", { maxLines: 2 })).toBe("> a\n> b\n> … (1 more lines)");
  });
});

describe("codeSpan", () => {
  it.each([
    ["naruto/m-1/a", "`naruto/m-1/a`"],
    ["a`b", "`a'b`"],
    ["feat|pipe", "`feat|pipe`"],
    ["two\nlines", "`two lines`"],
    ["", "` `"],
  ])("renders %j as %s", (input, expected) => {
    expect(codeSpan(input)).toBe(expected);
  });
});

describe("cellCode", () => {
  it("escapes the pipe that would end a table cell", () => {
    expect(cellCode("a|b")).toBe("`a\\|b`");
  });
});

describe("safeLink", () => {
  it.each<[string, string | undefined, string | null]>([
    ["run", "https://github.com/acme/demo/actions/runs/1", "[run](https://github.com/acme/demo/actions/runs/1)"],
    ["run", "https://x.example/a b)(c<d>", "[run](https://x.example/a%20b%29%28c%3Cd%3E)"],
    ["run", "javascript:alert(1)", null],
    ["run", "data:text/html,<b>", null],
    ["run", "pid 1234", null],
    ["run", undefined, null],
    ["@everyone", "https://x.example/", "[@&#8203;everyone](https://x.example/)"],
  ])("links %s to %j", (label, url, expected) => {
    expect(safeLink(label, url)).toBe(expected);
  });
});
