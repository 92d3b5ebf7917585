import { describe, expect, it } from "vitest";
import { assemble, cutAtLine, fitLines, type FlexibleList } from "./fit.ts";

const list = (n: number, width: number, weight = 1): FlexibleList => ({
  lines: Array.from({ length: n }, (_, i) => `${i}`.padEnd(width, ".")),
  note: (hidden) => `… and ${hidden} more`,
  weight,
});

describe("fitLines", () => {
  it("keeps every line that fits", () => {
    expect(fitLines(list(3, 9), 30)).toEqual(["0........", "1........", "2........"]);
  });

  it("ends with a note counting the lines left out, within the budget", () => {
    const lines = fitLines(list(10, 9), 45);
    expect(lines).toEqual(["0........", "1........", "2........", "… and 7 more"]);
    expect(lines.join("\n").length).toBeLessThanOrEqual(45);
  });
});

describe("assemble", () => {
  it("joins parts with blank lines and keeps a table head with its rows", () => {
    expect(assemble(["# t", { head: ["| a |", "|---|"], lines: ["| 1 |"], note: () => "more" }], 10_000)).toBe("# t\n\n| a |\n|---|\n| 1 |");
  });

  it("gives a small list all it needs and the rest to the large one", () => {
    const small = list(5, 20);
    const large = list(5000, 20);
    const text = assemble(["header", small, large], 20_000);
    expect(text.length).toBeLessThanOrEqual(20_000);
    expect(text).toContain("4...................");
    expect(text).toMatch(/… and \d+ more$/);
    expect(text.length).toBeGreaterThan(19_000);
  });

  it("shares the room by weight when every list is too long", () => {
    const a = list(5000, 20, 1);
    const b = list(5000, 20, 3);
    const [, partA, partB] = assemble(["h", a, b], 20_000).split("\n\n");
    expect(partB!.length / partA!.length).toBeCloseTo(3, 0);
  });

  it("never exceeds the limit, even when a fixed part alone is too long", () => {
    expect(assemble(["x".repeat(100)], 50).length).toBeLessThanOrEqual(50);
  });
});

describe("cutAtLine", () => {
  it("cuts at a whole line, closes the code block it leaves open, and says so", () => {
    const graph = Array.from({ length: 500 }, (_, i) => `  n${i} --> n${i + 1}`).join("\n");
    const cut = cutAtLine(`**Verdict:** ok\n\n\`\`\`mermaid\ngraph TD\n${graph}\n\`\`\``, 2000);
    expect(cut.length).toBeLessThanOrEqual(2000);
    const lines = cut.split("\n");
    expect(lines.filter((l) => l.startsWith("```"))).toHaveLength(2);
    expect(lines.at(-4)).toMatch(/^ {2}n\d+ --> n\d+$/);
    expect(lines.slice(-3)).toEqual(["```", "", "_… cut here to stay within GitHub's comment limit._"]);
  });

  it("leaves text within the limit alone", () => {
    expect(cutAtLine("```\nopen", 100)).toBe("```\nopen");
  });
});
