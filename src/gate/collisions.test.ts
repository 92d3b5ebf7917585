import { describe, expect, it } from "vitest";
import { collidingNames, showDistinctPath } from "./collisions.ts";

const b = (s: string) => Buffer.from(s, "utf8");
const names = (groups: Buffer[][]) => groups.map((g) => g.map((n) => n.toString("utf8")));

describe("names that are one name on macOS and Windows", () => {
  it.each<[string, string[], string[][]]>([
    ["case", ["README.md", "readme.md", "a.ts"], [["README.md", "readme.md"]]],
    ["NFC and NFD", ["\u00e9.txt", "e\u0301.txt"], [["\u00e9.txt", "e\u0301.txt"]]],
    ["case and NFD at once", ["\u00c9.txt", "e\u0301.txt"], [["\u00c9.txt", "e\u0301.txt"]]],
    ["three of one name", ["A", "a", "b", "\u0041"], [["A", "a"]]],
    ["nothing alike", ["a.ts", "ab.ts", "a.ts.bak"], []],
  ])("%s", (_name, given, expected) => {
    expect(names(collidingNames(given.map(b)))).toEqual(expected);
  });

  it("compares names that are not UTF-8 by their bytes, ASCII case-folded", () => {
    const raw = (hex: string) => Buffer.from(hex, "hex");
    expect(collidingNames([raw("41ff"), raw("61ff"), raw("61fe")]).map((g) => g.map((n) => n.toString("hex")))).toEqual([["41ff", "61ff"]]);
  });

  it("shows two names that look alike apart", () => {
    expect(showDistinctPath(b("src/\u00e9.txt"))).toBe("src/\u00e9.txt");
    expect(showDistinctPath(b("src/e\u0301.txt"))).toBe('"src/e\\u0301.txt"');
    expect(showDistinctPath(b("a\nb"))).toBe('"a\\nb"');
  });
});
