import { describe, expect, it } from "vitest";
import { formatFastImport, quotePath } from "./fast-import.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);

it.each([
  ["plain.txt", '"plain.txt"'],
  ["with space/x", '"with space/x"'],
  ['q"uote', '"q\\"uote"'],
  ["back\\slash", '"back\\\\slash"'],
  ["new\nline", '"new\\nline"'],
  ["tab\there", '"tab\\011here"'],
  ["\u00c3\u00bc", '"\u00c3\u00bc"'],
])("quotePath(%j) is %s", (path, quoted) => {
  expect(quotePath(path)).toBe(quoted);
});

describe("formatFastImport", () => {
  it("writes a chain with marks, deletions before modifications, and reads the ids back", () => {
    const stream = formatFastImport({
      ref: "refs/naruto/fast-import/x",
      from: A,
      commits: [
        {
          author: "Ada <ada@x> 1 +0000",
          committer: "naruto <n@x> 2 +0000",
          encoding: null,
          message: "one\n",
          changes: [
            { path: "a/b", after: { mode: "100644", oid: B } },
            { path: "a", after: null },
          ],
        },
        { author: "Bob <b@x> 3 +0000", committer: "naruto <n@x> 4 +0000", encoding: "ISO-8859-1", message: "two", changes: [] },
      ],
    });
    expect(stream.toString("latin1")).toBe(
      [
        "feature done",
        "commit refs/naruto/fast-import/x",
        "mark :1",
        "author Ada <ada@x> 1 +0000",
        "committer naruto <n@x> 2 +0000",
        "data 4",
        "one",
        "",
        `from ${A}`,
        'D "a"',
        `M 100644 ${B} "a/b"`,
        "",
        "commit refs/naruto/fast-import/x",
        "mark :2",
        "author Bob <b@x> 3 +0000",
        "committer naruto <n@x> 4 +0000",
        "encoding ISO-8859-1",
        "data 3",
        "two",
        "from :1",
        "",
        "get-mark :1",
        "get-mark :2",
        "reset refs/naruto/fast-import/x",
        "",
        "done",
        "",
      ].join("\n"),
    );
  });
});
