/**
 * The test report a verify command writes (`queue.verify_report`, a path or glob relative to
 * the repository root), found and read in the verify's work directory. The directory is the
 * candidate's files plus whatever the command did: untrusted. So the walk never follows a
 * symlink, each file is read with `readAgentFile` (no symlink, no FIFO, a size cap), and the
 * walk and the reads are bounded. Reports already in the candidate's tree are removed before the
 * command runs: only a report the command wrote counts.
 */
import { lstat, readdir, unlink } from "node:fs/promises";
import { join, posix } from "node:path";
import picomatch from "picomatch";
import { readAgentFile } from "../sandbox/index.ts";
import { mergeReports, parseJUnit, TestReportError, type ReportRead, type TestReport } from "../queue/index.ts";

const MAX_ENTRIES = 50_000;
const MAX_FILES = 64;
const MAX_FILE_BYTES = 16 * 1024 * 1024;

class TooManyEntriesError extends Error {
  override readonly name = "TooManyEntriesError";
}

/** Paths (relative to `root`, POSIX) of the regular files and symlinks that match `pattern`. */
async function matching(root: string, pattern: string): Promise<string[]> {
  const scan = picomatch.scan(pattern);
  const isMatch = picomatch(pattern, { dot: true });
  if (!scan.isGlob) {
    const stat = await lstat(join(root, pattern)).catch(() => null);
    return stat !== null && (stat.isFile() || stat.isSymbolicLink()) ? [pattern] : [];
  }
  const found: string[] = [];
  let seen = 0;
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) throw new TooManyEntriesError();
      const path = dir === "" ? entry.name : posix.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== ".git") await walk(path);
      } else if ((entry.isFile() || entry.isSymbolicLink()) && isMatch(path)) {
        found.push(path);
      }
    }
  };
  await walk(scan.base === "" || scan.base === "." ? "" : scan.base);
  return found.sort();
}

/** Removes the candidate's own files that match the report pattern (a report committed to the tree proves nothing). */
export async function clearReports(root: string, pattern: string): Promise<void> {
  try {
    for (const path of await matching(root, pattern)) await unlink(join(root, path)).catch(() => undefined);
  } catch (error) {
    if (!(error instanceof TooManyEntriesError)) throw error;
  }
}

/** The report the command wrote, read and merged; unreadable (with why) when there is none or it is not JUnit XML. */
export async function readReports(root: string, pattern: string): Promise<ReportRead> {
  let paths: string[];
  try {
    paths = await matching(root, pattern);
  } catch (error) {
    if (!(error instanceof TooManyEntriesError)) throw error;
    return { kind: "unreadable", reason: `more than ${MAX_ENTRIES} files lie where queue.verify_report (${pattern}) looks: give it a narrower path` };
  }
  if (paths.length === 0) return { kind: "unreadable", reason: `the verify wrote no test report at ${pattern} (queue.verify_report)` };
  if (paths.length > MAX_FILES)
    return {
      kind: "unreadable",
      reason: `${paths.length} files match queue.verify_report (${pattern}); at most ${MAX_FILES} are read: give it a narrower glob`,
    };
  const reports: TestReport[] = [];
  for (const path of paths) {
    const read = await readAgentFile(join(root, path), `test report ${path}`, MAX_FILE_BYTES);
    if (read.text === null) return { kind: "unreadable", reason: read.notes[0] ?? `the test report ${path} could not be read` };
    try {
      reports.push(parseJUnit(read.text, { root }));
    } catch (error) {
      if (!(error instanceof TestReportError)) throw error;
      return { kind: "unreadable", reason: `the test report ${path} is not a JUnit XML report: ${error.message}` };
    }
  }
  return { kind: "read", report: reports.length === 1 && reports[0] ? reports[0] : mergeReports(reports) };
}
