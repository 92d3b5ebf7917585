import { describe, expect, it } from "vitest";
import { checkpointed, integrated, item, missionAfter, planned, requested } from "../../test/support/mission-builders.ts";
import { policyFindings } from "./policy.ts";
import { decideVerdict } from "./verdict.ts";
import { isTestFile, skipMarkerIn } from "./test-markers.ts";
import { parsePatch, testsWeakenedFindings } from "./tests-weakened.ts";

describe("test files and skip markers", () => {
  it.each([
    ["test/a.test.js", true],
    ["src/__tests__/x.ts", true],
    ["pkg/parse_test.go", true],
    ["tests/test_api.py", true],
    ["src/main/java/UserTest.java", true],
    ["spec/models/user_spec.rb", true],
    ["src/app.ts", false],
    ["docs/testing.md", false],
  ])("%s is a test file: %s", (path, expected) => {
    expect(isTestFile(path)).toBe(expected);
  });

  it.each([
    ["test/a.test.js", "  it.skip('adds', () => {", "it.skip("],
    ["test/a.test.js", "xit('adds', () => {", "xit("],
    ["test/a.test.js", "xdescribe('math', () => {", "xdescribe("],
    ["test/a.test.ts", "describe.skip('math', () => {", "describe.skip("],
    ["test/a.test.ts", "test('x', { skip: true }, () => {})", "{ skip: true"],
    ["tests/test_a.py", "@pytest.mark.skip(reason='later')", "@pytest.mark.skip"],
    ["src/util.py", "    @unittest.skip('flaky')", "@unittest.skip"],
    ["pkg/a_test.go", '\tt.Skip("later")', "t.Skip("],
    ["src/lib.rs", "    #[ignore]", "#[ignore"],
    ["src/test/java/UserTest.java", '  @Disabled("later")', "@Disabled"],
    ["src/test/kotlin/UserTest.kt", "  @Ignore", "@Ignore"],
    ["Tests/UserTests.cs", '[Fact(Skip = "later")]', "[Fact(Skip ="],
  ])("%s: %s", (path, line, marker) => {
    expect(skipMarkerIn(path, line)).toBe(marker);
  });

  it.each([
    ["src/app.js", "queue.skip(3)"],
    ["src/go.go", "t.Skip()"],
    ["test/a.test.js", "it('skips nothing', () => {"],
    ["test/a.test.js", "const skip = true;"],
  ])("%s: %s is no marker", (path, line) => {
    expect(skipMarkerIn(path, line)).toBeNull();
  });
});

const PATCH = [
  "diff --git a/test/a.test.js b/test/a.test.js",
  "deleted file mode 100644",
  "index 1111111..0000000",
  "--- a/test/a.test.js",
  "+++ /dev/null",
  "@@ -1,2 +0,0 @@",
  "-it('a', () => {});",
  "-it('b', () => {});",
  "diff --git a/test/b.test.js b/test/b.test.js",
  "index 2222222..3333333 100644",
  "--- a/test/b.test.js",
  "+++ b/test/b.test.js",
  "@@ -3 +3 @@ describe('b', () => {",
  "-  it('works', () => {",
  "+  it.skip('works', () => {",
  "@@ -9,0 +10,1 @@",
  "+++ a line that starts with two pluses",
  "diff --git a/test/old.test.js b/test/moved.test.js",
  "similarity index 100%",
  "rename from test/old.test.js",
  "rename to test/moved.test.js",
].join("\n");

describe("parsePatch", () => {
  it("reads deletions, renames and added lines with their numbers", () => {
    expect(parsePatch(PATCH)).toEqual([
      { path: "test/a.test.js", deleted: true, added: [] },
      {
        path: "test/b.test.js",
        deleted: false,
        added: [
          { line: 3, text: "  it.skip('works', () => {" },
          { line: 10, text: "++ a line that starts with two pluses" },
        ],
      },
      { path: "test/moved.test.js", deleted: false, added: [] },
    ]);
  });

  it("unquotes a path git quoted", () => {
    expect(parsePatch('diff --git "a/t/\\303\\274.test.js" "b/t/\\303\\274.test.js"\ndeleted file mode 100644\n')[0]?.path).toBe("t/ü.test.js");
  });
});

describe("tests_weakened", () => {
  const mission = (tests: "may_weaken" | null) =>
    missionAfter([requested(), planned([item("gut", [], { writes: ["test/"], tests })]), checkpointed("gut"), integrated("gut")]);

  it("is an error with the file and line for each deleted test file and skip marker, and asks for changes", () => {
    const m = mission(null);
    const findings = testsWeakenedFindings(m, [{ item: "gut", files: parsePatch(PATCH) }]);
    expect(findings.map((f) => [f.severity, f.rule, f.path, f.line])).toEqual([
      ["error", "tests_weakened", "test/a.test.js", null],
      ["error", "tests_weakened", "test/b.test.js", 3],
    ]);
    expect(findings[1]?.message).toContain("it.skip(");
    const policy = policyFindings({
      mission: m,
      changedPaths: [],
      protectedPaths: [],
      queue: { verifyConfigured: false, headVerified: false },
      proofCheck: { ok: true },
      itemPatches: [{ item: "gut", files: parsePatch(PATCH) }],
    });
    expect(decideVerdict({ policy, review: null }).verdict).toBe("request_changes");
  });

  it("is an info that says so when the item's plan entry allows it", () => {
    const findings = testsWeakenedFindings(mission("may_weaken"), [{ item: "gut", files: parsePatch(PATCH) }]);
    expect(findings.map((f) => f.severity)).toEqual(["info", "info"]);
    expect(findings[0]?.message).toContain("tests: may_weaken");
  });
});
