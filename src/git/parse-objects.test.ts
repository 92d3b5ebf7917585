import { describe, expect, it } from "vitest";
import { GitParseError, parseCatFileBatch, parseCommit, parseLsTree, parseRawDiff, parseUnmergedPaths } from "./parse-objects.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);
const Z = "0".repeat(40);
const C1 = "c".repeat(40);

describe("parseRawDiff", () => {
  it("groups --stdin output under commit headers, with adds, deletes and odd paths", () => {
    const out = [C1, `:100644 100755 ${A} ${B} M`, "run.sh", `:000000 120000 ${Z} ${A} A`, "new\nlink", `:100644 000000 ${B} ${Z} D`, ":gone"];
    expect(parseRawDiff(`${out.join("\x00")}\x00`)).toEqual([
      {
        header: C1,
        changes: [
          { path: "run.sh", before: { mode: "100644", oid: A }, after: { mode: "100755", oid: B } },
          { path: "new\nlink", before: null, after: { mode: "120000", oid: A } },
          { path: ":gone", before: { mode: "100644", oid: B }, after: null },
        ],
      },
    ]);
  });

  it("reads a two-tree diff (no header)", () => {
    expect(parseRawDiff(`:100644 100644 ${A} ${B} M\x00f\x00`)).toEqual([
      { header: null, changes: [{ path: "f", before: { mode: "100644", oid: A }, after: { mode: "100644", oid: B } }] },
    ]);
  });

  it("refuses rename records: the queue asks for --no-renames", () => {
    expect(() => parseRawDiff(`:100644 100644 ${A} ${A} R100\x00old\x00new\x00`)).toThrow(GitParseError);
  });
});

it.each([
  [
    `100644 blob ${A}\ta b.txt\x00120000 blob ${B}\tdir/li\tnk\x00`,
    [
      ["a b.txt", { mode: "100644", oid: A }],
      ["dir/li\tnk", { mode: "120000", oid: B }],
    ],
  ],
  [`160000 commit ${A}\tvendor/lib\x00`, [["vendor/lib", { mode: "160000", oid: A }]]],
  ["", []],
])("parseLsTree(%j)", (input, expected) => {
  expect(parseLsTree(input)).toEqual(expected);
});

it.each([
  [`100644 ${A} 1\tf.txt\x00100644 ${B} 2\tf.txt\x00100644 ${A} 3\tf.txt\x00`, ["f.txt"]],
  ["f.txt\x00g h\x00", ["f.txt", "g h"]],
])("parseUnmergedPaths(%j)", (input, expected) => {
  expect(parseUnmergedPaths(input)).toEqual(expected);
});

describe("cat-file and commits", () => {
  const content = `tree ${A}\nparent ${B}\nauthor Ada <ada@x> 1700000000 +0100\ncommitter Bob <bob@x> 1700000001 -0500\ngpgsig -----BEGIN-----\n line\n -----END-----\n\nSubject\n\nNaruto-Item: a\n`;

  it("splits a batch by the sizes in the headers, content newlines included", () => {
    const batch = `${C1} commit ${content.length}\n${content}\n${"d".repeat(40)} missing\n`;
    expect(parseCatFileBatch(batch)).toEqual([{ oid: C1, type: "commit", content }, { missing: "d".repeat(40) }]);
  });

  it("keeps author, committer and the whole message; drops the signature", () => {
    expect(parseCommit(content)).toEqual({
      tree: A,
      parents: [B],
      author: "Ada <ada@x> 1700000000 +0100",
      committer: "Bob <bob@x> 1700000001 -0500",
      encoding: null,
      message: "Subject\n\nNaruto-Item: a\n",
    });
  });
});
