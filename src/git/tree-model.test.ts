import { describe, expect, it } from "vitest";
import { VirtualTree, displayPath, rawText, type PathChange, type TreeEntry } from "./tree-model.ts";

const blob = (oid: string, mode = "100644"): TreeEntry => ({ mode, oid: oid.repeat(40).slice(0, 40) });
const tree = (files: Record<string, TreeEntry>) => VirtualTree.fromEntries(Object.entries(files));
const change = (path: string, before: TreeEntry | null, after: TreeEntry | null): PathChange => ({ path, before, after });

describe("VirtualTree.check", () => {
  const t = tree({ "a.txt": blob("a"), "src/x.ts": blob("x"), "src/y.ts": blob("y") });

  it.each<[string, PathChange[], readonly string[] | null]>([
    ["a modify whose pre-image is on the tree", [change("a.txt", blob("a"), blob("b"))], null],
    ["an add of an absent path", [change("new.txt", null, blob("n"))], null],
    ["a delete of an unchanged file", [change("src/x.ts", blob("x"), null)], null],
    ["a modify of a file changed underneath", [change("a.txt", blob("0"), blob("b"))], ["a.txt"]],
    ["a mode change underneath", [change("a.txt", blob("a", "100755"), blob("b"))], ["a.txt"]],
    ["an add of a path that now exists", [change("src/x.ts", null, blob("n"))], ["src/x.ts"]],
    ["a delete of a file that is gone", [change("gone.txt", blob("g"), null)], ["gone.txt"]],
    ["a file below a path that is a file", [change("a.txt/inner", null, blob("n"))], ["a.txt/inner"]],
    ["a file where a directory still has files", [change("src", null, blob("n")), change("src/x.ts", blob("x"), null)], ["src"]],
    [
      "a file replacing a directory whose every file it deletes",
      [change("src", null, blob("n")), change("src/x.ts", blob("x"), null), change("src/y.ts", blob("y"), null)],
      null,
    ],
    ["a directory replacing a file it deletes", [change("a.txt", blob("a"), null), change("a.txt/inner", null, blob("n"))], null],
  ])("%s", (_, changes, stale) => {
    expect(t.check(changes)).toEqual(stale === null ? { ok: true } : { ok: false, paths: stale });
  });
});

describe("VirtualTree.apply", () => {
  it("tracks directories so that a later check sees a file turned into a directory", () => {
    const t = tree({ a: blob("a") });
    t.apply([change("a", blob("a"), null), change("a/b", null, blob("b"))]);
    expect(t.get("a")).toBeUndefined();
    expect(t.check([change("a", null, blob("c"))])).toEqual({ ok: false, paths: ["a"] });
    t.apply([change("a/b", blob("b"), null)]);
    expect(t.check([change("a", null, blob("c"))])).toEqual({ ok: true });
  });

  it("leaves a clone alone", () => {
    const t = tree({ a: blob("a") });
    const copy = t.clone();
    copy.apply([change("a", blob("a"), null)]);
    expect([t.size, copy.size]).toEqual([1, 0]);
  });
});

it("keeps raw path bytes apart from their display form", () => {
  expect(rawText("ü/é.md")).toBe("\u00c3\u00bc/\u00c3\u00a9.md");
  expect(displayPath(rawText("ü/é.md"))).toBe("ü/é.md");
});
