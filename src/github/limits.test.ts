import { describe, expect, it } from "vitest";
import { InputLimitError } from "./errors.ts";
import { CHECK_TEXT_LIMIT, checkDispatchInputs, COMMENT_BODY_LIMIT, DISPATCH_MAX_CHARS, truncate } from "./limits.ts";

describe("truncate", () => {
  it("returns text within the limit unchanged", () => {
    expect(truncate("short", { limit: 10 })).toBe("short");
    const exact = "x".repeat(COMMENT_BODY_LIMIT);
    expect(truncate(exact, { limit: COMMENT_BODY_LIMIT })).toBe(exact);
  });

  it.each([COMMENT_BODY_LIMIT, CHECK_TEXT_LIMIT, 200])("cuts text over %i characters to the limit, with the count and the link", (limit) => {
    const text = "a".repeat(limit + 1000);
    const cut = truncate(text, { limit, link: "https://example.test/runs/7" });
    expect(cut.length).toBeLessThanOrEqual(limit);
    const hidden = Number(/truncated: (\d+) characters not shown/.exec(cut)?.[1]);
    expect(cut.indexOf("\n\n…")).toBe(text.length - hidden);
    expect(cut.endsWith("Full text: https://example.test/runs/7")).toBe(true);
  });

  it("says nothing about a link when none is given", () => {
    expect(truncate("b".repeat(500), { limit: 100 })).toMatch(/not shown\.$/);
  });

  it("cuts at a whole line and closes a code block it would leave open", () => {
    const graph = Array.from({ length: 3000 }, (_, i) => `  n${i} --> n${i + 1}`).join("\n");
    const body = `**Verdict:** ✅ approve\n\n\`\`\`mermaid\ngraph TD\n${graph}\n\`\`\``;
    const cut = truncate(body, { limit: 20_000, link: "https://example.test/r" });
    expect(cut.length).toBeLessThanOrEqual(20_000);
    const [kept = "", note = ""] = cut.split("\n\n… truncated");
    expect(kept.endsWith("\n```")).toBe(true);
    expect(kept.split("\n").filter((l) => l.startsWith("```"))).toHaveLength(2);
    expect(kept.split("\n").at(-2)).toMatch(/^ {2}n\d+ --> n\d+$/);
    expect(note).toMatch(/^: \d+ characters not shown\. Full text: https:\/\/example\.test\/r$/);
  });

  it("never leaves half of a surrogate pair at the cut", () => {
    const text = "😀".repeat(300); // two UTF-16 units each
    for (let limit = 90; limit < 100; limit++) {
      const cut = truncate(text, { limit });
      const kept = cut.slice(0, cut.indexOf("\n\n…"));
      expect(kept).toBe("😀".repeat(kept.length / 2));
      expect(cut.length).toBeLessThanOrEqual(limit);
    }
  });
});

describe("checkDispatchInputs", () => {
  it("accepts ids: up to 25 inputs and 65,535 characters", () => {
    expect(() => checkDispatchInputs(Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, "v"])))).not.toThrow();
    expect(() => checkDispatchInputs({ mission: "m-1", items: "a,b,c", dry: true, n: 3 })).not.toThrow();
  });

  it("refuses a 26th input", () => {
    expect(() => checkDispatchInputs(Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`k${i}`, "v"])))).toThrow(InputLimitError);
  });

  it("refuses inputs longer than 65,535 characters in all, keys and punctuation counted", () => {
    const room = DISPATCH_MAX_CHARS - JSON.stringify({ p: "" }).length;
    expect(() => checkDispatchInputs({ p: "x".repeat(room) })).not.toThrow();
    expect(() => checkDispatchInputs({ p: "x".repeat(room + 1) })).toThrow(/pass ids, never prompts/);
  });
});
