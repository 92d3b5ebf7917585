/**
 * The gate on real git objects: each forged change is one a hostile work job could put in its
 * bundle (or an agent in its checkpoint). Every row that breaks git's fsck rules is checked
 * against git's own `fsck --strict` too, so the gate refuses what git refuses, by path and rule.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestRepo, type TestRepo } from "../../test/support/git-repo.ts";
import { forgeCommit, forgeTree, type ForgedDir } from "../../test/support/forged-tree.ts";
import type { GitCallFor } from "./changes.ts";
import { checkGate, STRICT_GATE, type GatePolicy, type GateResult } from "./gate.ts";
import { isDotGit } from "./names.ts";

let repo: TestRepo;
let base: string;
let call: GitCallFor;
// A repository per test: git's fsck reads every object of a repository, whatever it is asked.
beforeEach(async () => {
  repo = await createTestRepo({ "README.md": "# app\n", "src/keep.txt": "keep\n" });
  base = await repo.run("rev-parse", "HEAD");
  call = (args, extra) => ({ args, cwd: repo.dir, ...(extra?.input !== undefined ? { input: extra.input } : {}) });
  await repo.git({ args: ["hash-object", "-w", "--stdin"], cwd: repo.dir, input: "test\n" });
});
afterEach(async () => repo.remove());

const SMALL: GatePolicy = { ...STRICT_GATE, maxFileSize: 1024 };
const keep: ForgedDir[number] = ["keep.txt", "keep\n"];

async function gate(top: ForgedDir, policy: GatePolicy = SMALL, options: { keepOrder?: boolean } = {}): Promise<{ result: GateResult; commit: string }> {
  const { commit } = await forgeCommit(repo.git, repo.dir, { base, top, message: "forged\n", ...options });
  return { result: await bothWays(base, commit, policy), commit };
}

/**
 * The gate's verdict, read with one `cat-file --batch-command` and through the repository's
 * long-running processes (as a checkpoint of a work directory is): the same, or the test fails.
 */
async function bothWays(start: string, tip: string, policy: GatePolicy): Promise<GateResult> {
  const once = await checkGate({ git: repo.git, call, base: start, tip, policy });
  expect(await checkGate({ git: repo.git, call, base: start, tip, policy, repoDir: repo.dir })).toEqual(once);
  return once;
}

const refusals = (r: GateResult) => (r.kind === "refused" ? r.violations.map((v) => `${v.path} (${v.rule})`) : []);

/**
 * git's own verdict on the repository's objects (the base, and the forged commit): does
 * `fsck --strict` find a problem? Its warnings (zero-padded and group-writable modes, null ids,
 * full paths in a name) count as errors here: the gate refuses those too.
 */
async function fsckRefuses(commit: string): Promise<boolean> {
  const warnings = ["zeroPaddedFilemode", "badFilemode", "nullSha1", "fullPathname"].flatMap((id) => ["-c", `fsck.${id}=error`]);
  const out = await repo.git({
    args: [...warnings, "fsck", "--strict", "--no-dangling", "--no-progress", commit],
    cwd: repo.dir,
    okCodes: [1, 2, 3, 4, 5, 6, 7, 8],
  });
  return out.code !== 0;
}

describe("the gate refuses what git's fsck refuses, by path and rule", () => {
  it.each<[string, () => Promise<ForgedDir>, string[]]>([
    ["src/sub/.git/config", async () => [["src", [keep, ["sub", [[".git", [["config", "[core]\n\thooksPath = /tmp\n"]]]]]]]], ["src/sub/.git (dotgit)"]],
    [
      "src/.GIT/hooks/post-checkout",
      async () => [["src", [keep, [".GIT", [["hooks", [["post-checkout", { content: "#!/bin/sh\n", mode: "100755" }]]]]]]]],
      ["src/.GIT (dotgit)"],
    ],
    ["git~1/config", async () => [["git~1", [["config", "x\n"]]]], ["git~1 (dotgit)"]],
    [".git. (a trailing dot and space)", async () => [["src", [keep, [".git. ", [["config", "x\n"]]]]]], ["src/.git.  (dotgit)"]],
    [".g\u200cit (an HFS+-ignored code point)", async () => [["src", [keep, [".g\u200cit", [["config", "x\n"]]]]]], ["src/.g\u200cit (dotgit)"]],
    ["src/../README.md as one entry", async () => [["src/../README.md", "overwritten\n"]], ["src/../README.md (bad_name)"]],
    ["a tree named ..", async () => [["src", [keep, ["..", [["README.md", "overwritten\n"]]]]]], ["src/.. (bad_name)"]],
    ["a tree named .", async () => [["src", [keep, [".", [["x", "x\n"]]]]]], ["src/. (bad_name)"]],
    ["a name twice", async () => [["src", [keep, ["a.ts", "one\n"], ["a.ts", "two\n"]]]], ["src/a.ts (duplicate_name)"]],
    ["a file and a folder of one name", async () => [["src", [keep, ["a", "file\n"], ["a", [["b", "x\n"]]]]]], ["src/a (duplicate_name)"]],
    ["mode 100664", async () => [["src", [keep, ["a.ts", { content: "x\n", mode: "100664" }]]]], ["src/a.ts (bad_mode)"]],
    ["a zero-padded tree mode", async () => [["src", [keep, ["lib", { tree: [["a.ts", "x\n"]], mode: "040000" }]]]], ["src/lib (bad_mode)"]],
    [
      "a folder that names a blob",
      async () => [["src", [keep, ["lib", { oid: "9daeafb9864cf43055ae93beb0afd6c7d144bfa4", mode: "40000" }]]]],
      ["src/lib (bad_tree)"],
    ],
    ["an empty name", async () => [["src", [keep, ["", "x\n"]]]], ["src/ (bad_name)"]],
  ])("%s", async (_name, top, expected) => {
    const { result, commit } = await gate(await top());
    expect(result.kind).toBe("refused");
    expect(refusals(result)).toEqual(expected);
    expect(await fsckRefuses(commit)).toBe(true);
  });

  it("names entries out of git's order (a tree git walks, but fsck refuses)", async () => {
    const { result, commit } = await gate([["src", [["b.ts", "b\n"], ["a.ts", "a\n"], keep]]], SMALL, { keepOrder: true });
    expect(refusals(result)).toContain("src/a.ts (bad_tree)");
    expect(await fsckRefuses(commit)).toBe(true);
  });

  it("names a tree the repository does not have", async () => {
    const { result } = await gate([["src", [keep, ["lib", { oid: "1".repeat(40), mode: "40000" }]]]]);
    expect(refusals(result)).toEqual(["src/lib (bad_tree)"]);
  });

  it("quotes a path with a line break rather than printing it", async () => {
    const { result } = await gate([["src", [keep, ["a\nb", [[".git", [["c", "c\n"]]]]]]]]);
    expect(refusals(result)).toEqual(['"src/a\\nb/.git" (dotgit)']);
  });
});

describe("names: the gate and git's own index agree on what is .git", () => {
  // Git's index refuses these (read-cache.c verify_path, with core.protectHFS and core.protectNTFS on).
  it.each([
    ".git",
    ".GIT",
    "git~1",
    "Git~1.",
    ".git. ",
    ".git::$INDEX_ALLOCATION",
    ".g\u200cit",
    ".gi\ufefft",
    "x\\.git",
    ".gitx",
    "a\\.gitx",
    "git~2",
    ".github",
    ".gitmodules",
  ])("%j", async (name) => {
    const blob = await repo.run("rev-parse", "HEAD:README.md");
    const args = ["-c", "core.protectHFS=true", "-c", "core.protectNTFS=true", "update-index", "--add", "--cacheinfo", `100644,${blob},${name}/f`];
    const indexed = await repo.git({ args, cwd: repo.dir, okCodes: [128] });
    expect(isDotGit(Buffer.from(name))).toBe(indexed.code === 128);
  });
});

describe("the gate's own rules: gitlinks, .gitmodules, .gitattributes, size", () => {
  const sub = "0123456789abcdef0123456789abcdef01234567";
  const gitmodules = `[submodule "deno"]\n\tpath = src/deno\n\turl = https://github.com/denoland/deno.git\n`;

  it.each<[string, ForgedDir, string[]]>([
    ["a gitlink", [["src", [keep, ["deno", { gitlink: sub }]]]], ["src/deno (gitlink)"]],
    ["a .gitmodules under the subtree", [["src", [keep, [".gitmodules", gitmodules]]]], ["src/.gitmodules (gitmodules)"]],
    ["a .gitmodules by its 8.3 name", [["src", [keep, ["GITMOD~1", gitmodules]]]], ["src/GITMOD~1 (gitmodules)"]],
    ["src/x/.gitattributes", [["src", [keep, ["x", [[".gitattributes", "* filter=lfs\n"]]]]]], ["src/x/.gitattributes (gitattributes)"]],
    ["a file over limits.max_file_size", [["src", [keep, ["big.bin", Buffer.alloc(2048, 1)]]]], ["src/big.bin (file_too_large)"]],
  ])("refuses %s unless config allows it", async (_name, top, expected) => {
    const { result } = await gate(top);
    expect(refusals(result)).toEqual(expected);
    // Git's fsck has nothing against them: these are naruto's policy.
    expect(await fsckRefuses((await forgeCommit(repo.git, repo.dir, { base, top, message: "x\n" })).commit)).toBe(false);
  });

  it("refuses a 101 MiB file with the default limit (GitHub refuses 100 MiB)", async () => {
    const { result } = await gate([["src", [keep, ["huge.bin", Buffer.alloc(101 * 1024 * 1024, 7)]]]], STRICT_GATE);
    expect(result.kind === "refused" && result.violations).toEqual([
      { path: "src/huge.bin", rule: "file_too_large", detail: expect.stringMatching(/^105906176 bytes, more than limits.max_file_size \(52428800 bytes\)$/) },
    ]);
  });

  it("lets a gitlink with its .gitmodules through when allowed, and lists them", async () => {
    const { result } = await gate(
      [
        [".gitmodules", gitmodules],
        ["src", [keep, ["deno", { gitlink: sub }]]],
      ],
      { ...SMALL, submodules: true },
    );
    expect(result.kind).toBe("passed");
    expect(result.changes?.map((c) => `${c.path} ${c.newMode}`)).toEqual([".gitmodules 100644", "src/deno 160000"]);
  });

  it.each<[string, string, RegExp]>([
    ["a url that is an option", `[submodule "x"]\n\tpath = x\n\turl = -u./payload\n`, /url "-u.\/payload"/],
    ["a path that is an option", `[submodule "x"]\n\tpath = --upload-pack=x\n\turl = https://e.test/x\n`, /path "--upload-pack=x"/],
    ["a name with ..", `[submodule "../../hooks"]\n\tpath = x\n\turl = https://e.test/x\n`, /a name git refuses/],
    ["an update command", `[submodule "x"]\n\tpath = x\n\turl = https://e.test/x\n\tupdate = !sh evil\n`, /runs a command/],
    ["a relative url that climbs into the host", `[submodule "x"]\n\tpath = x\n\turl = ../../:evil.test/x\n`, /url/],
    ["a url with a newline", `[submodule "x"]\n\tpath = x\n\turl = ./a%0ahost=evil\n`, /url/],
    ["a file git cannot parse", `[submodule "x"\n`, /cannot parse/],
  ])("refuses an allowed .gitmodules with %s", async (_name, text, detail) => {
    const { result } = await gate([[".gitmodules", text]], { ...SMALL, submodules: true });
    expect(result.kind === "refused" && result.violations).toEqual([{ path: ".gitmodules", rule: "gitmodules", detail: expect.stringMatching(detail) }]);
  });

  it("refuses an allowed .gitmodules or .gitattributes that is a symbolic link", async () => {
    const links: ForgedDir = [
      [".gitmodules", { content: "README.md", mode: "120000" }],
      ["src", [keep, [".gitattributes", { content: "../README.md", mode: "120000" }]]],
    ];
    const { result } = await gate(links, { ...SMALL, submodules: true, gitattributes: true });
    expect(refusals(result)).toEqual([".gitmodules (gitmodules)", "src/.gitattributes (gitattributes)"]);
  });

  it("lets an allowed .gitattributes through, unless git would not read a line of it", async () => {
    const allowed = { ...SMALL, gitattributes: true, maxFileSize: 1 << 20 };
    expect((await gate([["src", [keep, [".gitattributes", "*.png binary\n"]]]], allowed)).result.kind).toBe("passed");
    const { result } = await gate([["src", [keep, [".gitattributes", `*.png binary\n${"a".repeat(3000)} -diff\n`]]]], allowed);
    expect(refusals(result)).toEqual(["src/.gitattributes (gitattributes)"]);
  });

  it("does not blame a change for the gitlinks and .gitattributes its base already had", async () => {
    const { commit: start } = await forgeCommit(repo.git, repo.dir, {
      base,
      top: [
        [".gitattributes", "* text=auto\n"],
        ["src", [keep, ["deno", { gitlink: sub }], [".gitattributes", "*.ts diff\n"]]],
      ],
      message: "base with a submodule\n",
    });
    const tree = await forgeTree(repo.git, repo.dir, [
      [".gitattributes", "* text=auto\n"],
      ["README.md", "# app\n"],
      ["src", [keep, ["deno", { gitlink: sub }], [".gitattributes", "*.ts diff\n"], ["new.ts", "x\n"]]],
    ]);
    const result = await bothWays(start, tree, SMALL);
    expect(result).toEqual({ kind: "passed", changes: [expect.objectContaining({ path: "src/new.ts", kind: "added" })] });
  });

  it("refuses removing a submodule or a .gitattributes as much as adding one", async () => {
    const { commit: start } = await forgeCommit(repo.git, repo.dir, {
      base,
      top: [["src", [keep, ["deno", { gitlink: sub }], [".gitattributes", "*.ts diff\n"]]]],
      message: "base\n",
    });
    const tree = await forgeTree(repo.git, repo.dir, [
      ["README.md", "# app\n"],
      ["src", [keep]],
    ]);
    const result = await bothWays(start, tree, SMALL);
    expect(refusals(result)).toEqual(["src/.gitattributes (gitattributes)", "src/deno (gitlink)"]);
  });

  it.each<[string, ForgedDir, string[]]>([
    [
      "a name in two cases",
      [["src", [keep, ["README.md", "a\n"], ["readme.md", "b\n"]]]],
      ["src/README.md (name_collision)", "src/readme.md (name_collision)"],
    ],
    [
      "a name in NFC and in NFD",
      [["src", [keep, ["\u00e9.txt", "a\n"], ["e\u0301.txt", "b\n"]]]],
      ['"src/e\\u0301.txt" (name_collision)', "src/\u00e9.txt (name_collision)"],
    ],
    ["a folder beside the base's in another case", [["Src", [["a.ts", "x\n"]]]], ["Src (name_collision)", "src (name_collision)"]],
    ["a file beside the base's in another case", [["readme.MD", "x\n"]], ["README.md (name_collision)", "readme.MD (name_collision)"]],
  ])("refuses %s, each name by path (one name on macOS and Windows)", async (_name, top, expected) => {
    const { result, commit } = await gate(top);
    expect(refusals(result)).toEqual(expected);
    expect(result.kind === "refused" && result.violations[0]?.detail).toMatch(/ and .* are one name on macOS and Windows/);
    // Git on Linux has nothing against them.
    expect(await fsckRefuses(commit)).toBe(false);
  });

  it("does not blame a change for a pair of names its base already had", async () => {
    const { commit: start } = await forgeCommit(repo.git, repo.dir, { base, top: [["readme.md", "lower\n"]], message: "base with both\n" });
    const tree = await forgeTree(repo.git, repo.dir, [
      ["README.md", "# app, edited\n"],
      ["readme.md", "lower\n"],
      ["src", [keep]],
    ]);
    expect(await bothWays(start, tree, SMALL)).toEqual({ kind: "passed", changes: [expect.objectContaining({ path: "README.md", kind: "modified" })] });
  });

  it("passes an honest change", async () => {
    const { result } = await gate([["src", [keep, ["a.ts", "export const a = 1;\n"]]]]);
    expect(result).toEqual({ kind: "passed", changes: [expect.objectContaining({ path: "src/a.ts", kind: "added" })] });
  });
});
