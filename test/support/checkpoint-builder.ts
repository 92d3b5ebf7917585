/**
 * Builds checkpoint commits for queue tests without a work tree: each is one commit on top of
 * a given base, written by one `git fast-import` with inline contents. Written independently of
 * the queue's own fast-import code, so that a bug there cannot hide in the fixtures.
 */
import type { Git } from "../../src/git/run-git.ts";
import type { Checkpoint } from "../../src/queue/types.ts";

/** A file's new state: content (mode 100644), content with a mode, or null to delete it. */
export type FileSpec = string | Buffer | { readonly content: string | Buffer; readonly mode: "100644" | "100755" | "120000" } | null;

export interface CommitSpec {
  readonly base: string;
  readonly files: Readonly<Record<string, FileSpec>>;
  readonly message?: string | Buffer;
  /** `Name <email>`; the date is fixed. */
  readonly author?: string;
  readonly item?: string;
  readonly attempt?: number;
  /** "latin1": each path character is one byte, to write paths that are not valid UTF-8. */
  readonly pathBytes?: "utf8" | "latin1";
}

const AUTHOR = "Worker Agent <agent@example.test> 1767225600 +0000";

function quote(path: string, encoding: "utf8" | "latin1" = "utf8"): Buffer {
  const bytes = Buffer.from(path, encoding);
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b < 0x20 || b === 0x7f) out += `\\${b.toString(8).padStart(3, "0")}`;
    else out += String.fromCharCode(b);
  }
  return Buffer.from(`${out}"`, "latin1");
}

const data = (content: string | Buffer) => {
  const buf = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  return Buffer.concat([Buffer.from(`data ${buf.length}\n`), buf, Buffer.from("\n")]);
};

/** Writes the commits (each on its own base) with one fast-import; returns their ids in order. */
export async function writeCommits(git: Git, repoDir: string, specs: readonly CommitSpec[]): Promise<string[]> {
  if (specs.length === 0) return [];
  const ref = "refs/naruto-test/builder";
  const parts: Buffer[] = [];
  specs.forEach((spec, i) => {
    const author = spec.author ? `${spec.author} 1767225600 +0000` : AUTHOR;
    parts.push(Buffer.from(`commit ${ref}\nmark :${i + 1}\nauthor ${author}\ncommitter ${AUTHOR}\n`));
    parts.push(data(spec.message ?? `work on ${spec.item ?? "item"}\n\nNaruto-Item: ${spec.item ?? "item"}\n`));
    parts.push(Buffer.from(`from ${spec.base}\n`));
    for (const [path, file] of Object.entries(spec.files)) {
      if (file === null) parts.push(Buffer.from("D "), quote(path, spec.pathBytes), Buffer.from("\n"));
    }
    for (const [path, file] of Object.entries(spec.files)) {
      if (file === null) continue;
      const { content, mode } = typeof file === "string" || Buffer.isBuffer(file) ? { content: file, mode: "100644" } : file;
      parts.push(Buffer.from(`M ${mode} inline `), quote(path, spec.pathBytes), Buffer.from("\n"), data(content));
    }
    parts.push(Buffer.from("\n"));
  });
  specs.forEach((_, i) => parts.push(Buffer.from(`get-mark :${i + 1}\n`)));
  parts.push(Buffer.from(`reset ${ref}\n\ndone\n`));
  const out = await git({ args: ["fast-import", "--quiet", "--date-format=raw", "--done"], cwd: repoDir, input: Buffer.concat(parts) });
  return out.stdout
    .toString("latin1")
    .split("\n")
    .filter((l) => l !== "");
}

/** Writes checkpoint commits and returns them as the queue's input. */
export async function writeCheckpoints(git: Git, repoDir: string, specs: readonly CommitSpec[]): Promise<Checkpoint[]> {
  const ids = await writeCommits(git, repoDir, specs);
  return specs.map((spec, i) => ({ item: spec.item ?? `item-${i}`, attempt: spec.attempt ?? 1, commit: ids[i] ?? "", base: spec.base }));
}

/** path → { mode, content } of a commit's whole tree (contents as Buffers). */
export async function readWholeTree(git: Git, repoDir: string, commit: string): Promise<Map<string, { mode: string; content: Buffer }>> {
  const listing = await git({ args: ["ls-tree", "-r", "-z", "--full-tree", commit], cwd: repoDir });
  const entries = listing.stdout
    .toString("utf8")
    .split("\0")
    .filter((r) => r !== "")
    .map((r) => {
      const tab = r.indexOf("\t");
      const [mode = "", , oid = ""] = r.slice(0, tab).split(" ");
      return { path: r.slice(tab + 1), mode, oid };
    });
  const batch = await git({ args: ["cat-file", "--batch"], cwd: repoDir, input: entries.map((e) => `${e.oid}\n`).join("") });
  const out = new Map<string, { mode: string; content: Buffer }>();
  let at = 0;
  for (const entry of entries) {
    const eol = batch.stdout.indexOf(0x0a, at);
    const size = Number(batch.stdout.subarray(at, eol).toString("latin1").split(" ")[2]);
    out.set(entry.path, { mode: entry.mode, content: batch.stdout.subarray(eol + 1, eol + 1 + size) });
    at = eol + 1 + size + 1;
  }
  return out;
}
