import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cleanPath, isCoveredBy, normalizeAnyPath, normalizePath, overlapOf, pathsOverlap, repoPathOf, type RepoPath } from "./paths.ts";

function norm(input: string): RepoPath {
  const r = normalizePath(input);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(input)} to be valid: ${r.message}`);
  return r.value;
}

describe("normalizePath", () => {
  it.each([
    ["src/a.ts", "src/a.ts", false],
    ["./src/a.ts", "src/a.ts", false],
    ["src//api///users.ts", "src/api/users.ts", false],
    ["src/api/", "src/api/", true],
    ["./src/./api/", "src/api/", true],
    ["src/x/../y.ts", "src/y.ts", false],
    ["src/x/..", "src/", true],
    ["src/..", ".", true],
    [".", ".", true],
    ["./", ".", true],
    ["/", ".", true],
    ["docs/read me.md", "docs/read me.md", false],
    ["src/Ünïcode.ts", "src/Ünïcode.ts", false],
  ])("%j → %j", (input, path, subtree) => {
    const p = norm(input);
    expect(p.path).toBe(path);
    expect(p.subtree).toBe(subtree);
  });

  it.each([
    ["", "empty"],
    ["..", `".." leaves the repository`],
    ["src/../../etc", `".." leaves the repository`],
    ["/etc/passwd", "absolute"],
    ["C:/x", "absolute"],
    ["src/a\u0000b", "control character"],
    ["src/a\nb", "control character"],
    ["src\\a.ts", `use "/"`],
    [".git/hooks/pre-commit", "git's own directory"],
    ["./.GIT/config", "git's own directory"],
  ])("rejects %j", (input, message) => {
    const r = normalizePath(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain(message);
  });
});

describe("the clean-path fast path", () => {
  // Pieces that hit every rule: separators, dots, `.git`, a drive letter, case, controls, Unicode.
  const piece = fc.constantFrom(
    "a",
    "B",
    "src",
    "/",
    "//",
    ".",
    "..",
    "...",
    ".git",
    ".GIT",
    ".gitx",
    "C:",
    ":",
    "\\",
    "\u0000",
    "\n",
    "\u007f",
    "\u00e9",
    "e\u0301",
    " ",
    "-_~",
  );
  const input = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""));

  it("returns what the general normalizer returns, or stands aside", () => {
    fc.assert(
      fc.property(input, (path) => {
        const clean = cleanPath(path);
        if (clean !== null) expect(normalizeAnyPath(path)).toEqual({ ok: true, value: clean });
        expect(normalizePath(path)).toEqual(normalizeAnyPath(path));
      }),
      { numRuns: 5000 },
    );
  });

  it.each(["src/a.ts", "test/api/", "A/B.TS", ".github/x", "a...b/.c"])("takes the plain path %j", (path) => {
    expect(cleanPath(path)).not.toBeNull();
  });
});

describe("pathsOverlap", () => {
  it.each([
    ["src/a", "src/a", true],
    ["src/a", "src/ab", false],
    ["src/a/", "src/ab/", false],
    ["src/a/", "src/a/b.ts", true],
    ["src/a", "src/a/b.ts", true],
    ["src/A.ts", "src/a.ts", true],
    ["SRC/", "src/x.ts", true],
    [".", "anything/at/all", true],
    ["/", "x", true],
    ["a/b", "a/c", false],
    ["docs/", "doc/x", false],
  ])("%j and %j: %s", (a, b, expected) => {
    expect(pathsOverlap(norm(a), norm(b))).toBe(expected);
    expect(pathsOverlap(norm(b), norm(a))).toBe(expected);
  });

  it("compares Unicode in one normal form", () => {
    // "é" as one code point (NFC) and as e + combining accent (NFD, as macOS writes names).
    expect(pathsOverlap(norm("caf\u00e9.md"), norm("cafe\u0301.md"))).toBe(true);
  });

  it("names the overlap as the deeper path", () => {
    expect(overlapOf(norm("src/"), norm("src/x/y.ts"))?.path).toBe("src/x/y.ts");
    expect(overlapOf(norm("src/x/"), norm("src/"))?.path).toBe("src/x/");
    expect(overlapOf(norm("a"), norm("b"))).toBeNull();
  });
});

describe("isCoveredBy", () => {
  const writes = ["src/api/users.ts", "test/api/users/"].map(norm);
  it.each([
    ["src/api/users.ts", true],
    ["SRC/API/Users.ts", true],
    ["test/api/users/a.test.ts", true],
    ["test/api/users/deep/b.ts", true],
    ["test/api/users2/a.ts", false],
    ["src/api/orders.ts", false],
    ["src/api/users.ts.bak", false],
  ])("%j: %s", (file, expected) => {
    expect(isCoveredBy(repoPathOf(file), writes)).toBe(expected);
  });

  it("takes git paths with odd characters as they are", () => {
    expect(repoPathOf('test/api/users/a "quoted"\tname').path).toBe('test/api/users/a "quoted"\tname');
    expect(isCoveredBy(repoPathOf("test/api/users/new\nline"), writes)).toBe(true);
  });
});
