/**
 * A unified diff of two texts, line by line, for `naruto init --dry-run` and `naruto upgrade`:
 * what a person reads before a file of theirs changes. The files are a few hundred lines, so a
 * plain longest-common-subsequence table is quick enough and gives the shortest edit.
 */

type Op = { readonly kind: " " | "-" | "+"; readonly line: string };

function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

function edits(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i * (m + 1) + j]: the longest common subsequence of a[i..] and b[j..].
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] =
        a[i] === b[j] ? (lcs[(i + 1) * (m + 1) + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * (m + 1) + j] ?? 0, lcs[i * (m + 1) + j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i++] ?? "" });
      j++;
    } else if (i < n && (j === m || (lcs[(i + 1) * (m + 1) + j] ?? 0) >= (lcs[i * (m + 1) + j + 1] ?? 0))) {
      ops.push({ kind: "-", line: a[i++] ?? "" });
    } else {
      ops.push({ kind: "+", line: b[j++] ?? "" });
    }
  }
  return ops;
}

/** `--- a/path`, `+++ b/path` and hunks with `context` lines around each change; "" when the texts are equal. */
export function unifiedDiff({ before, after, path, context = 3 }: { before: string | null; after: string; path: string; context?: number }): string {
  const ops = edits(lines(before ?? ""), lines(after));
  if (ops.every((op) => op.kind === " ")) return "";
  const changed = ops.map((op, index) => (op.kind === " " ? -1 : index)).filter((index) => index >= 0);
  const hunks: Array<[number, number]> = [];
  for (const index of changed) {
    const last = hunks[hunks.length - 1];
    if (last !== undefined && index - last[1] <= 2 * context) last[1] = index;
    else hunks.push([index, index]);
  }
  const out = [`--- ${before === null ? "/dev/null" : `a/${path}`}`, `+++ b/${path}`];
  for (const [first, last] of hunks) {
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, last + context);
    let oldStart = 1;
    let newStart = 1;
    for (const op of ops.slice(0, from)) {
      if (op.kind !== "+") oldStart++;
      if (op.kind !== "-") newStart++;
    }
    const slice = ops.slice(from, to + 1);
    const oldCount = slice.filter((op) => op.kind !== "+").length;
    const newCount = slice.filter((op) => op.kind !== "-").length;
    out.push(`@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@`);
    for (const op of slice) out.push(`${op.kind}${op.line}`);
  }
  return `${out.join("\n")}\n`;
}
