/**
 * Tests weakened (issue 37): a queue commit that deletes a test file or adds a skip marker in one
 * is a finding `tests_weakened` with the file and line — an error (`request_changes`) unless the
 * item's plan entry says `tests: may_weaken`, then an info that says so. Pure: the patches of the
 * items' queue commits in, findings out; the engine reads the patches (src/engine/review.ts).
 */
import type { Finding, Mission, TestFinding } from "../mission/index.ts";
import { RULES } from "./rules.ts";
import { isTestFile, skipMarkerIn } from "./test-markers.ts";

/** What one file of a commit's patch did: deleted, or the lines it added (with their numbers). */
export interface PatchFile {
  readonly path: string;
  readonly deleted: boolean;
  readonly added: readonly { readonly line: number; readonly text: string }[];
}

/** The patch of one item's queue commit. */
export interface ItemPatch {
  readonly item: string;
  readonly files: readonly PatchFile[];
}

/**
 * Reads `git diff -p -M -U0` output (one commit's, or several after `--format=%x00%H`-style
 * separators the caller splits on): file by file, deletions and the added lines.
 */
export function parsePatch(text: string): PatchFile[] {
  const files: PatchFile[] = [];
  let current: { path: string; deleted: boolean; added: { line: number; text: string }[] } | null = null;
  let next = 0;
  // Inside a file's hunks, a line is content: an added "++ x" must not read as a `+++` header.
  let inHunks = false;
  for (const raw of text.split("\n")) {
    if (raw.startsWith("diff --git ")) {
      if (current) files.push(current);
      current = { path: pathOfHeader(raw), deleted: false, added: [] };
      inHunks = false;
    } else if (current === null) {
    } else if (raw.startsWith("@@")) {
      next = Number(/\+(\d+)/.exec(raw)?.[1] ?? "0");
      inHunks = true;
    } else if (inHunks) {
      if (raw.startsWith("+")) {
        current.added.push({ line: next, text: raw.slice(1) });
        next += 1;
      } else if (raw.startsWith(" ")) {
        next += 1;
      }
    } else if (raw.startsWith("deleted file mode")) {
      current.deleted = true;
    } else if (raw.startsWith("rename to ")) {
      current.path = unquote(raw.slice("rename to ".length));
    } else if (raw.startsWith("+++ ")) {
      const target = raw.slice(4);
      if (target !== "/dev/null") current.path = unquote(target).replace(/^b\//, "");
    }
  }
  if (current) files.push(current);
  return files;
}

/** Findings for every test file deleted and every skip marker added, item by item. */
export function testsWeakenedFindings(mission: Mission, patches: readonly ItemPatch[]): Finding[] {
  const out: Finding[] = [];
  for (const patch of patches) {
    const item = mission.items.find((i) => i.id === patch.item);
    const allowed = item?.tests === "may_weaken";
    for (const file of patch.files) {
      if (file.deleted && isTestFile(file.path)) {
        out.push(weakened(patch.item, allowed, `deletes the test file ${file.path}`, file.path, null));
        continue;
      }
      for (const added of file.added) {
        const marker = skipMarkerIn(file.path, added.text);
        if (marker !== null)
          out.push(
            weakened(patch.item, allowed, `adds \`${marker.slice(0, 80)}\` to ${file.path}:${added.line}: a test that no longer runs`, file.path, added.line),
          );
      }
    }
  }
  return out;
}

/** The queue's report findings (fewer tests ran, more were skipped): the same rule, by the report's evidence. */
export function testReportFindings(mission: Mission, findings: readonly TestFinding[]): Finding[] {
  return findings.map((f) => {
    const allowed = f.items.length > 0 && f.items.every((id) => mission.items.find((i) => i.id === id)?.tests === "may_weaken");
    const message = `${f.message} (test report of queue.verify_report at ${f.head.slice(0, 12)})${allowed ? `; allowed by the plan: ${f.items.join(", ")} may weaken tests (tests: may_weaken)` : ""}`;
    return { severity: allowed ? "info" : "error", rule: RULES.testsWeakened, message, path: f.files[0] ?? null, line: null };
  });
}

function weakened(item: string, allowed: boolean, what: string, path: string, line: number | null): Finding {
  const message = `item "${item}" ${what}${allowed ? "; allowed by its plan entry (tests: may_weaken)" : "; if that is intended, say so in the plan with `tests: may_weaken` on the item"}`;
  return { severity: allowed ? "info" : "error", rule: RULES.testsWeakened, message, path, line };
}

function pathOfHeader(line: string): string {
  // `diff --git a/x b/x`; the `+++`/`rename to` lines that follow give the exact path.
  const quoted = line.lastIndexOf(' "b/');
  if (line.endsWith('"') && quoted !== -1) return unquote(line.slice(quoted + 1)).replace(/^b\//, "");
  const match = / b\/(.*)$/.exec(line);
  return match?.[1] ?? "";
}

/** git quotes a path with unusual bytes as a C string: `"a\tb"`. */
function unquote(path: string): string {
  if (!path.startsWith('"') || !path.endsWith('"')) return path;
  const body = path.slice(1, -1);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? "";
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const n = body[++i] ?? "";
    if (/[0-7]/.test(n)) {
      bytes.push(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else {
      bytes.push(({ n: 10, t: 9, '"': 34, "\\": 92, a: 7, b: 8, f: 12, r: 13, v: 11 } as Record<string, number>)[n] ?? n.charCodeAt(0));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}
