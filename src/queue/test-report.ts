/**
 * What the tests did, from the JUnit XML a verify command writes (`queue.verify_report`): the
 * most widely written test report format (JUnit, pytest, Go's gotestsum, cargo-nextest, Jest and
 * Vitest reporters, Maven Surefire). The XML is read by fast-xml-parser; this file only knows
 * JUnit's shape: `<testsuites>` › `<testsuite>` (nested or not) › `<testcase>` with a
 * `<failure>`, `<error>` or `<skipped>` child.
 *
 * The report is untrusted (the verify command runs code agents wrote): it is validated as XML,
 * its numbers are counted from the test cases (never taken from a suite's own attributes when it
 * lists cases), and what is kept is bounded.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";

/** Tests of one file (or of one suite, when the report names no file). */
export interface TestFileCount {
  readonly file: string;
  readonly tests: number;
  readonly failed: number;
  readonly skipped: number;
}

export interface TestReport {
  /** Test cases listed, skipped ones included. */
  readonly tests: number;
  readonly failed: number;
  readonly skipped: number;
  /** Per file, sorted by name (at most {@link MAX_FILES}; the totals count every case). */
  readonly files: readonly TestFileCount[];
  /** `file::classname::name` of each failed case, sorted (at most {@link MAX_FAILURES}). */
  readonly failures: readonly string[];
}

/** Tests that ran: listed and not skipped. */
export const testsRun = (report: Pick<TestReport, "tests" | "skipped">): number => report.tests - report.skipped;

export const MAX_FILES = 2000;
export const MAX_FAILURES = 500;

/** The report could not be read as JUnit XML; the message says what to fix. */
export class TestReportError extends Error {
  override readonly name = "TestReportError";
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  // Names and counts stay text: a test called "1" is not the number 1.
  parseAttributeValue: false,
  parseTagValue: false,
  htmlEntities: false,
  // Elements only: `skipped="2"` on a suite is an attribute, `<skipped/>` in a case an element.
  isArray: (name, _path, _leaf, isAttribute) =>
    !isAttribute && (name === "testsuite" || name === "testcase" || name === "failure" || name === "error" || name === "skipped"),
});

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);
const nodes = (v: unknown): Node[] => (Array.isArray(v) ? v.filter(isNode) : []);
const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);
const count = (v: unknown): number => {
  const n = typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : 0;
  return Number.isSafeInteger(n) ? n : 0;
};

/** A suite or case name that is a path of a file (it has a folder or a file extension). */
const PATHLIKE = /(^|\/)[^/\s]+\.[A-Za-z0-9]{1,8}$|\//;

/**
 * Reads one JUnit XML document. `root`: the folder the verify ran in, cut from absolute paths in
 * the report so that files are named as in the repository.
 *
 * @example
 * parseJUnit('<testsuite name="t"><testcase name="a"/><testcase name="b"><skipped/></testcase></testsuite>')
 * // { tests: 2, failed: 0, skipped: 1, files: [{ file: "t", tests: 2, failed: 0, skipped: 1 }], failures: [] }
 */
export function parseJUnit(xml: string, options: { readonly root?: string } = {}): TestReport {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new TestReportError(`it is not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`);
  const doc: unknown = parser.parse(xml);
  if (!isNode(doc)) throw new TestReportError("it is empty");
  const top = isNode(doc["testsuites"]) ? nodes(doc["testsuites"]["testsuite"]) : nodes(doc["testsuite"]);
  if (top.length === 0 && !("testsuites" in doc)) throw new TestReportError("it has no <testsuites> or <testsuite> element: it is not a JUnit report");
  const files = new Map<string, { tests: number; failed: number; skipped: number }>();
  const failures: string[] = [];
  const fileName = (raw: string) => relativeTo(raw, options.root);
  const add = (file: string, tests: number, failed: number, skipped: number) => {
    const f = files.get(file) ?? { tests: 0, failed: 0, skipped: 0 };
    files.set(file, { tests: f.tests + tests, failed: f.failed + failed, skipped: f.skipped + skipped });
  };
  const visit = (suite: Node, inherited: string | null, depth: number) => {
    if (depth > 32) throw new TestReportError("its test suites are nested more than 32 deep");
    const suiteName = text(suite["name"]);
    const suiteFile = text(suite["file"]) ?? text(suite["filepath"]) ?? (suiteName !== null && PATHLIKE.test(suiteName) ? suiteName : null) ?? inherited;
    const cases = nodes(suite["testcase"]);
    for (const c of cases) {
      const classname = text(c["classname"]);
      const file = fileName(
        text(c["file"]) ?? suiteFile ?? (classname !== null && PATHLIKE.test(classname) ? classname : null) ?? suiteName ?? "(unnamed suite)",
      );
      const failed = hasChild(c, "failure") || hasChild(c, "error");
      const skipped = !failed && (hasChild(c, "skipped") || c["status"] === "skipped" || c["status"] === "disabled");
      add(file, 1, failed ? 1 : 0, skipped ? 1 : 0);
      if (failed) failures.push(`${file}::${classname ?? ""}::${text(c["name"]) ?? ""}`);
    }
    if (cases.length === 0 && nodes(suite["testsuite"]).length === 0) {
      // A suite that lists no case but counts them (some runners write only the totals).
      const tests = count(suite["tests"]);
      if (tests > 0) {
        const failed = Math.min(tests, count(suite["failures"]) + count(suite["errors"]));
        add(fileName(suiteFile ?? suiteName ?? "(unnamed suite)"), tests, failed, Math.min(tests - failed, count(suite["skipped"]) + count(suite["disabled"])));
      }
    }
    for (const inner of nodes(suite["testsuite"])) visit(inner, suiteFile, depth + 1);
  };
  for (const suite of top) visit(suite, null, 0);
  return summarize(files, failures);
}

/** Several reports (a glob matched more than one file) as one. */
export function mergeReports(reports: readonly TestReport[]): TestReport {
  const files = new Map<string, { tests: number; failed: number; skipped: number }>();
  for (const r of reports) {
    for (const f of r.files) {
      const had = files.get(f.file) ?? { tests: 0, failed: 0, skipped: 0 };
      files.set(f.file, { tests: had.tests + f.tests, failed: had.failed + f.failed, skipped: had.skipped + f.skipped });
    }
  }
  const merged = summarize(
    files,
    reports.flatMap((r) => r.failures),
  );
  // Totals count every case, also those of files past the kept list.
  const sum = (k: "tests" | "failed" | "skipped") => reports.reduce((n, r) => n + r[k], 0);
  return { ...merged, tests: sum("tests"), failed: sum("failed"), skipped: sum("skipped") };
}

function summarize(files: ReadonlyMap<string, { tests: number; failed: number; skipped: number }>, failures: readonly string[]): TestReport {
  let tests = 0;
  let failed = 0;
  let skipped = 0;
  for (const f of files.values()) {
    tests += f.tests;
    failed += f.failed;
    skipped += f.skipped;
  }
  const sorted = [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, MAX_FILES);
  return {
    tests,
    failed,
    skipped,
    files: sorted.map(([file, c]) => ({ file, ...c })),
    failures: [...new Set(failures)].sort().slice(0, MAX_FAILURES),
  };
}

/** `<failure/>` parses as an empty string in the array; any presence of the key counts. */
function hasChild(node: Node, name: string): boolean {
  return name in node && node[name] !== undefined;
}

function relativeTo(path: string, root: string | undefined): string {
  let p = path.replace(/\\/g, "/");
  if (root !== undefined) {
    const r = root.replace(/\\/g, "/").replace(/\/+$/, "");
    if (p.startsWith(`${r}/`)) p = p.slice(r.length + 1);
  }
  return p.replace(/^(\.\/)+/, "").slice(0, 1000);
}
