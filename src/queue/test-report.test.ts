import { describe, expect, it } from "vitest";
import { mergeReports, parseJUnit, TestReportError, testsRun } from "./test-report.ts";
import { judgeRun } from "./verify.ts";

const suite = (name: string, cases: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="${name}">${cases}</testsuite></testsuites>`;

describe("parseJUnit", () => {
  it.each([
    [
      "passes, failures, errors and skips counted from the cases",
      suite(
        "test/a.test.js",
        `<testcase name="a"/><testcase name="b"><failure message="x">boom</failure></testcase><testcase name="c"><error/></testcase><testcase name="d"><skipped/></testcase>`,
      ),
      { tests: 4, failed: 2, skipped: 1 },
    ],
    [
      "a lone <testsuite> root (pytest, gotestsum)",
      `<testsuite name="pkg" tests="2"><testcase classname="tests.test_a" name="t1" file="tests/test_a.py"/><testcase name="t2" file="tests/test_a.py"/></testsuite>`,
      { tests: 2, failed: 0, skipped: 0 },
    ],
    [
      "nested suites (JUnit 5, Maven)",
      `<testsuites><testsuite name="outer"><testsuite name="inner"><testcase name="x"/></testsuite><testcase name="y"/></testsuite></testsuites>`,
      { tests: 2, failed: 0, skipped: 0 },
    ],
    ["a suite with totals only", `<testsuites><testsuite name="s" tests="5" failures="1" skipped="2"/></testsuites>`, { tests: 5, failed: 1, skipped: 2 }],
    ["an empty report", `<testsuites tests="0"/>`, { tests: 0, failed: 0, skipped: 0 }],
  ])("%s", (_name, xml, counts) => {
    expect(parseJUnit(xml)).toMatchObject(counts);
  });

  it("names each case's file: its own attribute, its suite's, or a path-like suite name, relative to the work directory", () => {
    const report = parseJUnit(
      `<testsuites><testsuite name="/work/dir/test/a.test.js"><testcase name="a"/></testsuite><testsuite name="Parser"><testcase name="b" file="./src/p_test.go"/></testsuite></testsuites>`,
      { root: "/work/dir" },
    );
    expect(report.files.map((f) => f.file)).toEqual(["src/p_test.go", "test/a.test.js"]);
  });

  it("keeps a test named like a number as text and lists failures by file, class and name", () => {
    const report = parseJUnit(suite("t.test.js", `<testcase classname="k" name="1"><failure/></testcase>`));
    expect(report.failures).toEqual(["t.test.js::k::1"]);
  });

  it.each([
    ["not XML", "tests passed!"],
    ["XML of something else", "<html><body/></html>"],
    ["broken XML", "<testsuites><testsuite></testsuites>"],
  ])("refuses %s", (_name, text) => {
    expect(() => parseJUnit(text)).toThrow(TestReportError);
  });

  it("does not expand entities defined in the report itself", () => {
    const bomb = `<!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><testsuite name="&b;"><testcase name="x"/></testsuite>`;
    expect(parseJUnit(bomb).files[0]?.file.length).toBeLessThan(20);
  });

  it("merges several reports (a glob) file by file", () => {
    const merged = mergeReports([
      parseJUnit(suite("a.test.js", `<testcase name="1"/>`)),
      parseJUnit(suite("a.test.js", `<testcase name="2"><skipped/></testcase>`)),
    ]);
    expect(merged).toMatchObject({ tests: 2, skipped: 1, files: [{ file: "a.test.js", tests: 2, skipped: 1 }] });
    expect(testsRun(merged)).toBe(1);
  });
});

describe("judgeRun", () => {
  const read = (xml: string) => ({ kind: "read" as const, report: parseJUnit(xml) });

  it("is red when the report says no test ran, whatever the exit code", () => {
    const outcome = judgeRun({ exitCode: 0, output: "ok\n", report: read(`<testsuites tests="0"/>`) });
    expect(outcome.green).toBe(false);
    expect(outcome.outputTail).toContain("ran no test");
  });

  it("is red when every test was skipped", () => {
    expect(judgeRun({ exitCode: 0, output: "", report: read(suite("a.test.js", `<testcase name="a"><skipped/></testcase>`)) }).green).toBe(false);
  });

  it("is red when the report it asked for is missing, and says why", () => {
    const outcome = judgeRun({ exitCode: 0, output: "", report: { kind: "unreadable", reason: "the verify wrote no test report at junit.xml" } });
    expect(outcome).toMatchObject({ green: false, report: null });
    expect(outcome.outputTail).toContain("no test report at junit.xml");
  });

  it("goes by the exit code when tests ran", () => {
    const report = read(suite("a.test.js", `<testcase name="a"/>`));
    expect(judgeRun({ exitCode: 0, output: "", report }).green).toBe(true);
    expect(judgeRun({ exitCode: 1, output: "", report }).green).toBe(false);
    expect(judgeRun({ exitCode: 0, output: "" }).green).toBe(true);
  });

  it("compared with a red base, is green when it fails only what the base fails", () => {
    const baseline = parseJUnit(suite("a.test.js", `<testcase name="old"><failure/></testcase><testcase name="ok"/>`));
    const same = read(suite("a.test.js", `<testcase name="old"><failure/></testcase><testcase name="ok"/><testcase name="new"/>`));
    const worse = read(suite("a.test.js", `<testcase name="old"><failure/></testcase><testcase name="ok"><failure/></testcase>`));
    expect(judgeRun({ exitCode: 1, output: "", report: same }, { baseline }).green).toBe(true);
    const red = judgeRun({ exitCode: 1, output: "", report: worse }, { baseline });
    expect(red.green).toBe(false);
    expect(red.outputTail).toContain("a.test.js::::ok");
    expect(judgeRun({ exitCode: null, output: "", report: same }, { baseline }).green).toBe(false);
  });
});
