import { describe, expect, it } from "vitest";
import { testFindings } from "./test-findings.ts";

const report = (files: [string, number, number][]) => ({
  tests: files.reduce((n, [, t]) => n + t, 0),
  failed: 0,
  skipped: files.reduce((n, [, , s]) => n + s, 0),
  files: files.map(([file, tests, skipped]) => ({ file, tests, failed: 0, skipped })),
  failures: [],
});

describe("testFindings", () => {
  const items = [
    { id: "gut", writes: ["test/a.test.js"], changed: ["test/a.test.js"] },
    { id: "skipper", writes: ["test/b/"], changed: ["test/b/b.test.js"] },
    { id: "other", writes: ["src/"], changed: ["src/x.js"] },
  ];

  it("names the item whose writes cover the file that lost tests, and the one that skipped more", () => {
    const before = report([
      ["test/a.test.js", 2, 0],
      ["test/b/b.test.js", 2, 0],
    ]);
    const after = report([["test/b/b.test.js", 2, 1]]);
    const found = testFindings({ before, after, items, head: "h".repeat(40), at: "t" });
    expect(found.map((f) => [f.kind, f.items, f.files])).toEqual([
      ["fewer_tests", ["gut", "skipper"], ["test/a.test.js", "test/b/b.test.js"]],
      ["more_skipped", ["skipper"], ["test/b/b.test.js"]],
    ]);
    expect(found[0]?.message).toContain("ran 1 test(s), 4 before this batch");
  });

  it("says nothing when the batch ran as many tests and skipped no more", () => {
    const before = report([["test/a.test.js", 2, 0]]);
    expect(testFindings({ before, after: report([["test/a.test.js", 3, 0]]), items, head: "h", at: "t" })).toEqual([]);
  });

  it("names the whole batch when no item writes the files", () => {
    const found = testFindings({ before: report([["lib/t.test.js", 2, 0]]), after: report([["lib/t.test.js", 1, 0]]), items, head: "h", at: "t" });
    expect(found[0]?.items).toEqual(["gut", "skipper", "other"]);
    expect(found[0]?.message).toContain("no item of the batch writes those files");
  });
});
