import { describe, expect, it } from "vitest";
import { isDotGit, isDotGitattributes, isDotGitmodules, nameProblem } from "./names.ts";

const bytes = (name: string) => Buffer.from(name, "utf8");

/** Every spelling of `.git` git's own fsck refuses (fsck.c, path.c `is_ntfs_dotgit`, utf8.c `is_hfs_dotgit`). */
const DOTGIT_SPELLINGS: readonly string[] = [
  ".git",
  ".GIT",
  ".Git",
  "git~1",
  "GIT~1",
  ".git.",
  ".git ",
  ".git. .",
  "git~1.",
  ".git::$INDEX_ALLOCATION",
  ".g\u200cit",
  "\u200d.git",
  ".gi\ufefft",
  ".git\u200e",
  ".GI\u206at",
  "x\\.git",
  "a\\b\\git~1",
];

describe("isDotGit", () => {
  it.each(DOTGIT_SPELLINGS)("%j is .git", (name) => {
    expect(isDotGit(bytes(name))).toBe(true);
    expect(nameProblem(bytes(name))?.rule).toBe("dotgit");
  });

  it.each([".gitignore", ".github", "git", "git~2", ".git-blame-ignore-revs", "x.git", ".gi", "a\\.gitx", ".g\u200bit", "git~1x"])("%j is not", (name) => {
    expect(isDotGit(bytes(name))).toBe(false);
  });

  it("takes .git followed by malformed UTF-8 for .git, as HFS+ would (git's own rule)", () => {
    expect(isDotGit(Buffer.from([0x2e, 0x67, 0x69, 0x74, 0xff]))).toBe(true);
    expect(isDotGit(Buffer.from([0xff, 0x2e, 0x67, 0x69, 0x74]))).toBe(false);
  });
});

describe("isDotGitmodules and isDotGitattributes", () => {
  it.each([
    ".gitmodules",
    ".GITMODULES",
    ".gitmodules.",
    ".gitmodules ::$DATA",
    "gitmod~1",
    "GITMOD~4",
    "gi7eba~1",
    "gi7eb~12",
    ".git\u200cmodules",
    "a\\.gitmodules",
  ])("%j is .gitmodules", (name) => {
    expect(isDotGitmodules(bytes(name))).toBe(true);
  });

  it.each(["gitmodules", ".gitmodules2", "gitmod~5", "gitmod~1x", "gi7eba~12", ".gitmodule", "gi7ebb~1"])("%j is not .gitmodules", (name) => {
    expect(isDotGitmodules(bytes(name))).toBe(false);
  });

  it.each([".gitattributes", ".GitAttributes", ".gitattributes. ", "gitatt~1", "gi7d29~3", ".git\ufeffattributes"])("%j is .gitattributes", (name) => {
    expect(isDotGitattributes(bytes(name))).toBe(true);
  });

  it.each(["gitattributes", ".gitattribute", "gitatt~9", ".gitattributesx"])("%j is not .gitattributes", (name) => {
    expect(isDotGitattributes(bytes(name))).toBe(false);
  });
});

describe("nameProblem", () => {
  it.each([
    ["", "bad_name", /empty/],
    [".", "bad_name", /outside its directory/],
    ["..", "bad_name", /outside its directory/],
    ["src/../README.md", "bad_name", /"\/" inside one name/],
    ["a/b", "bad_name", /"\/" inside one name/],
  ])("%j: %s", (name, rule, detail) => {
    expect(nameProblem(bytes(name))).toEqual({ rule, detail: expect.stringMatching(detail) });
  });

  it.each(["index.ts", "...", ".. ", "a\\b", "café", ".gitmodules", ".gitattributes", " .git"])("%j is a plain name", (name) => {
    expect(nameProblem(bytes(name))).toBeNull();
  });
});
