import { describe, expect, it } from "vitest";
import { parseDiffTree } from "./changes.ts";

const A = "a".repeat(40);
const B = "b".repeat(40);
const Z = "0".repeat(40);

describe("parseDiffTree", () => {
  it("reads raw records with numstat, including renames and binary files", () => {
    const out = [
      `:100644 100755 ${A} ${B} M`,
      "run.sh",
      `:100644 100644 ${A} ${B} R087`,
      "old name.ts",
      "new\nname.ts",
      `:000000 100644 ${Z} ${B} A`,
      ":looks like a record",
      `:100644 000000 ${A} ${Z} D`,
      "gone.bin",
      "1\t0\trun.sh",
      "2\t1\t",
      "old name.ts",
      "new\nname.ts",
      "1\t0\t:looks like a record",
      "-\t-\tgone.bin",
      "",
    ].join("\0");
    expect(parseDiffTree(out)).toEqual([
      { kind: "modified", path: "run.sh", from: null, oldMode: "100644", newMode: "100755", oldOid: A, newOid: B, binary: false, symlinkTarget: null },
      {
        kind: "renamed",
        path: "new\nname.ts",
        from: "old name.ts",
        oldMode: "100644",
        newMode: "100644",
        oldOid: A,
        newOid: B,
        binary: false,
        symlinkTarget: null,
      },
      {
        kind: "added",
        path: ":looks like a record",
        from: null,
        oldMode: null,
        newMode: "100644",
        oldOid: null,
        newOid: B,
        binary: false,
        symlinkTarget: null,
      },
      { kind: "deleted", path: "gone.bin", from: null, oldMode: "100644", newMode: null, oldOid: A, newOid: null, binary: true, symlinkTarget: null },
    ]);
  });

  it("reads empty output as no change", () => {
    expect(parseDiffTree(Buffer.alloc(0))).toEqual([]);
  });
});
