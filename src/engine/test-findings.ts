/**
 * Tests that stopped running (issue 37): a batch that runs fewer tests than the head it was built
 * on, or skips more, is a finding that names the items whose writes cover the files that lost
 * tests. Pure: two test reports and the batch's items in, findings out.
 */
import type { TestFinding } from "../mission/index.ts";
import { isCoveredBy, normalizePath, type RepoPath } from "../plan/index.ts";
import { testsRun, type TestReport } from "../queue/index.ts";

export interface BatchItem {
  readonly id: string;
  /** The item's leased paths (the plan's `writes`). */
  readonly writes: readonly string[];
  /** What its queue commit changed. */
  readonly changed: readonly string[];
}

/**
 * @example
 * testFindings({ before, after, items: [{ id: "a", writes: ["test/"], changed: ["test/a.test.js"] }], head, at })
 * // [{ kind: "fewer_tests", items: ["a"], files: ["test/a.test.js"], message: "ran 3 tests, 5 before: …" }]
 */
export function testFindings(input: { before: TestReport; after: TestReport; items: readonly BatchItem[]; head: string; at: string }): TestFinding[] {
  const { before, after } = input;
  const out: TestFinding[] = [];
  const was = new Map(before.files.map((f) => [f.file, f]));
  const now = new Map(after.files.map((f) => [f.file, f]));
  if (testsRun(after) < testsRun(before)) {
    const files = [...was.values()].filter((f) => testsRun(now.get(f.file) ?? { tests: 0, skipped: 0 }) < testsRun(f)).map((f) => f.file);
    out.push(finding("fewer_tests", `ran ${testsRun(after)} test(s), ${testsRun(before)} before this batch`, files, input));
  }
  if (after.skipped > before.skipped) {
    const files = [...now.values()].filter((f) => f.skipped > (was.get(f.file)?.skipped ?? 0)).map((f) => f.file);
    out.push(finding("more_skipped", `skipped ${after.skipped} test(s), ${before.skipped} before this batch`, files, input));
  }
  return out;
}

function finding(
  kind: TestFinding["kind"],
  what: string,
  files: readonly string[],
  input: { items: readonly BatchItem[]; head: string; at: string },
): TestFinding {
  const named = input.items.filter((item) => files.some((file) => covers(item, file)));
  const items = (named.length > 0 ? named : input.items).map((i) => i.id);
  const where = files.length > 0 ? ` in ${files.slice(0, 10).join(", ")}${files.length > 10 ? ` and ${files.length - 10} more` : ""}` : "";
  const who = named.length > 0 ? `written by ${items.join(", ")}` : `no item of the batch writes those files; the batch held ${items.join(", ")}`;
  return { at: input.at, kind, head: input.head, items, files: files.slice(0, 100), message: `the batch ${what}${where}: ${who}` };
}

/** The item changed the file, or leases a path that holds it. */
function covers(item: BatchItem, file: string): boolean {
  if (item.changed.includes(file)) return true;
  const path = normalizePath(file);
  if (!path.ok) return false;
  const writes = item.writes.flatMap((w): RepoPath[] => {
    const n = normalizePath(w);
    return n.ok ? [n.value] : [];
  });
  return isCoveredBy(path.value, writes);
}
