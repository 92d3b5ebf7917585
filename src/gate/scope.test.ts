import { describe, expect, it } from "vitest";
import { normalizePath, type RepoPath } from "../plan/index.ts";
import type { Change } from "./changes.ts";
import { checkScope, symlinkProblem, type ScopePolicy } from "./scope.ts";

function paths(...written: string[]): RepoPath[] {
  return written.map((w) => {
    const n = normalizePath(w);
    if (!n.ok) throw new Error(n.message);
    return n.value;
  });
}

function change(over: Partial<Change> & Pick<Change, "path">): Change {
  return {
    kind: "modified",
    from: null,
    oldMode: "100644",
    newMode: "100644",
    oldOid: "a".repeat(40),
    newOid: "b".repeat(40),
    binary: false,
    symlinkTarget: null,
    ...over,
  };
}

function link(path: string, target: string): Change {
  return change({ path, kind: "added", oldMode: null, oldOid: null, newMode: "120000", symlinkTarget: target });
}

const policy: ScopePolicy = {
  writes: paths("src/api/", "docs/api.md"),
  readonly: false,
  protected: paths(".github/workflows/", ".github/naruto.yml"),
  allowProtected: false,
};

describe("checkScope", () => {
  it.each([
    ["a file inside a written subtree", "src/api/users.ts"],
    ["a deep file inside a written subtree", "src/api/v2/x/y.ts"],
    ["the written file itself", "docs/api.md"],
    ["a case variant of a written path", "SRC/Api/users.ts"],
    ["a path with spaces, quotes and non-ASCII characters", 'src/api/my "file" café.ts'],
    ["a path with a newline", "src/api/new\nline.ts"],
  ])("accepts %s", (_, path) => {
    expect(checkScope([change({ path })], policy)).toEqual({ ok: true });
  });

  it.each([
    ["a sibling file", "src/other.ts"],
    ["a name that only starts like a written directory", "src/apiary/x.ts"],
    ["a file under a written file's name", "docs/api.md.bak"],
    ["the parent of a written subtree", "src"],
  ])("rejects %s as outside_writes", (_, path) => {
    expect(checkScope([change({ path })], policy)).toEqual({
      ok: false,
      violations: [{ path, rule: "outside_writes", detail: expect.stringContaining("not inside the item's writes (src/api/, docs/api.md)") }],
    });
  });

  it("judges both sides of a rename: moving a file out of scope", () => {
    const result = checkScope([change({ kind: "renamed", from: "src/api/a.ts", path: "src/lib/a.ts" })], policy);
    expect(result).toEqual({ ok: false, violations: [{ path: "src/lib/a.ts", rule: "outside_writes", detail: expect.stringContaining("renamed from") }] });
  });

  it("judges both sides of a rename: taking a file from another item", () => {
    const result = checkScope([change({ kind: "renamed", from: "src/lib/a.ts", path: "src/api/a.ts" })], policy);
    expect(result).toEqual({ ok: false, violations: [{ path: "src/lib/a.ts", rule: "outside_writes", detail: expect.stringContaining("renamed to") }] });
  });

  it("rejects a protected path even inside the writes, unless the config allows it", () => {
    const wide: ScopePolicy = { ...policy, writes: paths(".") };
    const changes = [change({ path: ".github/workflows/ci.yml" }), change({ path: ".GitHub/naruto.yml", kind: "deleted" })];
    expect(checkScope(changes, wide)).toEqual({
      ok: false,
      violations: [
        { path: ".github/workflows/ci.yml", rule: "protected", detail: expect.any(String) },
        { path: ".GitHub/naruto.yml", rule: "protected", detail: expect.any(String) },
      ],
    });
    expect(checkScope(changes, { ...wide, allowProtected: true })).toEqual({ ok: true });
  });

  it("reports a path both outside the writes and protected under both rules", () => {
    const result = checkScope([change({ path: ".github/workflows/ci.yml" })], policy);
    expect(result.ok ? [] : result.violations.map((v) => v.rule)).toEqual(["outside_writes", "protected"]);
  });

  it("lets a read-only item change nothing, whatever its writes say", () => {
    const readOnly: ScopePolicy = { ...policy, readonly: true };
    expect(checkScope([change({ path: "src/api/users.ts" })], readOnly)).toEqual({
      ok: false,
      violations: [{ path: "src/api/users.ts", rule: "read_only", detail: expect.any(String) }],
    });
    expect(checkScope([change({ path: "README.md" })], { ...policy, writes: [] })).toMatchObject({ ok: false, violations: [{ rule: "read_only" }] });
    expect(checkScope([], readOnly)).toEqual({ ok: true });
  });

  it("lists every offending path, once per rule", () => {
    const result = checkScope([change({ path: "a.ts" }), change({ path: "b.ts" }), change({ path: "src/api/ok.ts" })], policy);
    expect(result.ok ? [] : result.violations.map((v) => v.path)).toEqual(["a.ts", "b.ts"]);
  });

  it("checks a symlink inside the writes by where it points", () => {
    expect(checkScope([link("src/api/current.ts", "v2/users.ts")], policy)).toEqual({ ok: true });
    expect(checkScope([link("src/api/link", "../../etc/passwd")], policy)).toEqual({
      ok: false,
      violations: [{ path: "src/api/link", rule: "symlink_target", detail: expect.stringContaining("outside the item's writes") }],
    });
  });

  it("checks a symlink that changed from a file", () => {
    const typeChange = change({ path: "src/api/x.ts", kind: "type_changed", newMode: "120000", symlinkTarget: "/etc/passwd" });
    expect(checkScope([typeChange], policy)).toMatchObject({ ok: false, violations: [{ rule: "symlink_target" }] });
  });

  it("does not judge a deleted symlink's target", () => {
    expect(checkScope([change({ path: "src/api/old-link", kind: "deleted", oldMode: "120000", newMode: null, newOid: null })], policy)).toEqual({ ok: true });
  });
});

describe("symlinkProblem", () => {
  it.each([
    ["src/api/a", "b.ts", null],
    ["src/api/a", "./v2/../b.ts", null],
    ["src/api/v2/a", "../b.ts", null],
    ["src/api/a", ".", null],
    ["src/api/a", "..", "outside the item's writes"],
    ["src/api/a", "../lib/b.ts", "outside the item's writes"],
    ["src/api/a", "../../../../outside", "leaves the repository"],
    ["src/api/a", "/etc/passwd", "absolute"],
    ["src/api/a", "C:/Windows", "absolute"],
    ["src/api/a", "..\\..\\x", "absolute"],
    ["docs/api.md", "index.md", "outside the item's writes"],
    ["src/api/a", "../../.git/config", '".git"'],
    ["src/api/a", "", "empty"],
  ])("%s → %j: %j", (path, target, problem) => {
    const got = symlinkProblem(path, target, policy);
    if (problem === null) expect(got).toBeNull();
    else expect(got).toContain(problem);
  });

  it("rejects a link into a protected path even when the writes cover it", () => {
    const wide = { ...policy, writes: paths(".") };
    expect(symlinkProblem("x", ".github/workflows/ci.yml", wide)).toContain("protected");
    expect(symlinkProblem("x", ".github/workflows/ci.yml", { ...wide, allowProtected: true })).toBeNull();
  });
});
