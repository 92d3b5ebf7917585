/**
 * What `naruto init` does to each file, decided before anything is written: a file that is
 * missing is created, one that already says exactly this is left alone (so a second run changes
 * nothing), and one that says something else is replaced only with `--force`.
 */
import { unifiedDiff } from "./line-diff.ts";

export type FileAction = "create" | "unchanged" | "replace" | "differs";

export interface PlannedFile {
  readonly path: string;
  readonly before: string | null;
  readonly after: string;
  readonly action: FileAction;
}

export function planFiles(
  wanted: ReadonlyArray<{ readonly path: string; readonly text: string }>,
  existing: Readonly<Record<string, string | null>>,
  force: boolean,
): PlannedFile[] {
  return wanted.map(({ path, text }) => {
    const before = existing[path] ?? null;
    const action: FileAction = before === null ? "create" : before === text ? "unchanged" : force ? "replace" : "differs";
    return { path, before, after: text, action };
  });
}

/** The diff `--dry-run` prints: what would be written, as a patch of the files as they are. */
export function planDiff(files: readonly PlannedFile[]): string {
  return files
    .filter((f) => f.action === "create" || f.action === "replace" || f.action === "differs")
    .map((f) => unifiedDiff({ before: f.before, after: f.after, path: f.path }))
    .join("");
}
