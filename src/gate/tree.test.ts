import { describe, expect, it } from "vitest";
import { parseTree, treeProblems, type RawTreeEntry } from "./tree.ts";

const OID = "ab".repeat(20);
const raw = (...entries: [string, string][]) =>
  Buffer.concat(entries.map(([mode, name]) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(OID, "hex")])));
const entry = (mode: string, name: string, oid = OID): RawTreeEntry => ({ mode, name: Buffer.from(name), oid });

describe("parseTree", () => {
  it("reads entries byte for byte", () => {
    expect(parseTree(raw(["100644", "a.ts"], ["40000", "src"]), 20)).toEqual({ ok: true, entries: [entry("100644", "a.ts"), entry("40000", "src")] });
  });

  it.each([
    ["a tree cut short", raw(["100644", "a.ts"]).subarray(0, 20), /cut short after 0 entries/],
    ["a mode that is not octal", raw(["10064x", "a.ts"]), /malformed mode "10064x"/],
    ["an empty mode", raw(["", "a.ts"]), /malformed mode ""/],
  ])("says where %s stops", (_name, bytes, detail) => {
    const parsed = parseTree(bytes, 20);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.detail).toMatch(detail);
  });
});

describe("treeProblems", () => {
  it("finds nothing in a tree git writes", () => {
    expect(treeProblems([entry("100644", "a.ts"), entry("100755", "b.sh"), entry("120000", "c"), entry("40000", "d"), entry("160000", "e")])).toEqual([]);
  });

  it.each([
    ["a mode git never writes", [entry("100600", "a")], "bad_mode"],
    ["a zero-padded mode", [entry("040000", "a")], "bad_mode"],
    ["an early git's group-writable mode", [entry("100664", "a")], "bad_mode"],
    ["a null object id", [entry("100644", "a", "0".repeat(40))], "bad_tree"],
    ["a name twice", [entry("100644", "a"), entry("100644", "a")], "duplicate_name"],
    ["a file and a folder of one name", [entry("100644", "a"), entry("40000", "a")], "duplicate_name"],
    ["entries out of order", [entry("100644", "b"), entry("100644", "a")], "bad_tree"],
    ["a folder sorted as if it had no /", [entry("40000", "a"), entry("100644", "a.c")], "bad_tree"],
    ["a .git", [entry("40000", ".git")], "dotgit"],
    ["..", [entry("40000", "..")], "bad_name"],
  ] as const)("%s", (_name, entries, rule) => {
    expect(treeProblems(entries).map((p) => p.rule)).toEqual([rule]);
  });

  it("orders a folder after a file it prefixes, as git does", () => {
    expect(treeProblems([entry("100644", "a.c"), entry("40000", "a")])).toEqual([]);
  });
});
