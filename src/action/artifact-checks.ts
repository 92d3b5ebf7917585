/**
 * Artifacts are data (issue 32): before naruto reads a byte of one, its files are checked — no
 * symbolic links, nothing outside its folder, regular files only, each under its size cap, and
 * only the names that artifact holds. Anything else refuses the whole artifact, by name, with
 * the rule it broke. Two doors: a zip naruto downloaded itself (`unpackArtifact`, never written
 * to disk until it passed), and a folder actions/download-artifact extracted
 * (`checkArtifactFolder`).
 */
import { mkdir, open, readdir, rm } from "node:fs/promises";
import { constants } from "node:fs";
import { join, posix } from "node:path";
import { listZipEntries, readZipEntry, ZipFormatError } from "./artifact-zip.ts";

/** What one artifact may hold: each file by name with its size cap, and optionally files matching a pattern. */
export interface ArtifactSpec {
  readonly files: Readonly<Record<string, number>>;
  readonly more?: { readonly pattern: RegExp; readonly maxBytes: number; readonly maxCount: number };
}

export type Unpacked = { readonly kind: "ok"; readonly files: ReadonlyMap<string, Buffer> } | { readonly kind: "refused"; readonly reason: string };

function capOf(spec: ArtifactSpec, name: string): number | null {
  const cap = spec.files[name];
  if (cap !== undefined) return cap;
  return spec.more?.pattern.test(name) ? spec.more.maxBytes : null;
}

function allowed(spec: ArtifactSpec): string {
  return [...Object.keys(spec.files), ...(spec.more ? [`files like ${spec.more.pattern.source}`] : [])].join(", ");
}

/** Why an entry's name is not a plain file name in the artifact's top folder, or null. */
function pathProblem(name: string): string | null {
  if (name === "" || name.includes("\0")) return "has an empty or NUL name";
  if (name.includes("\\") || posix.isAbsolute(name) || name.split("/").includes("..")) return "leaves the artifact's folder";
  if (name.includes("/")) return "is in a subfolder";
  return null;
}

/** The files of `zip` when every entry is one `spec` allows; else why not (the caller names the artifact). */
export function unpackArtifact(zip: Uint8Array, spec: ArtifactSpec): Unpacked {
  const refuse = (why: string): Unpacked => ({ kind: "refused", reason: why });
  // Room for a few entries more than it may hold, so that the one that should not be there is named.
  const count = Object.keys(spec.files).length + (spec.more?.maxCount ?? 0) + 16;
  try {
    const entries = listZipEntries(zip, count);
    const seen = new Set<string>();
    let more = 0;
    for (const e of entries) {
      const problem = pathProblem(e.name);
      if (problem !== null) return refuse(`entry ${JSON.stringify(e.name)} ${problem}`);
      if (e.kind === "symlink") return refuse(`${e.name} is a symbolic link`);
      if (e.kind !== "file") return refuse(`${e.name} is not a regular file`);
      const cap = capOf(spec, e.name);
      if (cap === null) return refuse(`${JSON.stringify(e.name)} is not a file this artifact holds (${allowed(spec)})`);
      if (seen.has(e.name)) return refuse(`${e.name} appears twice`);
      seen.add(e.name);
      if (spec.files[e.name] === undefined && ++more > (spec.more?.maxCount ?? 0)) return refuse("it holds too many files");
      if (e.size > cap) return refuse(`${e.name} is larger than ${cap} bytes`);
    }
    const files = new Map<string, Buffer>();
    for (const e of entries) files.set(e.name, readZipEntry(zip, e));
    return { kind: "ok", files };
  } catch (error) {
    if (error instanceof ZipFormatError) return refuse(error.message);
    throw error;
  }
}

/** Writes unpacked files into a fresh `folder` (made here; nothing of it may exist before). */
export async function writeUnpacked(folder: string, files: ReadonlyMap<string, Buffer>): Promise<void> {
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  for (const [name, data] of files) {
    const handle = await open(join(folder, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
  }
}

export type FolderCheck = { readonly kind: "missing" } | { readonly kind: "refused"; readonly reason: string } | { readonly kind: "ok" };

/**
 * A folder actions/download-artifact extracted an artifact into: only regular files of the names
 * `spec` allows, each under its cap; a link, a subfolder, a FIFO or another name refuses it.
 */
export async function checkArtifactFolder(folder: string, spec: ArtifactSpec): Promise<FolderCheck> {
  const entries = await readdir(folder, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (entries === null) return { kind: "missing" };
  const refuse = (why: string): FolderCheck => ({ kind: "refused", reason: why });
  let more = 0;
  for (const entry of entries) {
    if (entry.isSymbolicLink()) return refuse(`${entry.name} is a symbolic link`);
    if (!entry.isFile()) return refuse(`${entry.name} is not a regular file`);
    const cap = capOf(spec, entry.name);
    if (cap === null) return refuse(`${JSON.stringify(entry.name)} is not a file this artifact holds (${allowed(spec)})`);
    if (spec.files[entry.name] === undefined && ++more > (spec.more?.maxCount ?? 0)) return refuse("it holds too many files");
    // Opened without following links and without blocking, then measured: what is read is what was checked.
    const handle = await open(join(folder, entry.name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
    if (handle === null) return refuse(`${entry.name} cannot be opened as a regular file`);
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) return refuse(`${entry.name} is not a regular file`);
      if (stat.size > cap) return refuse(`${entry.name} is larger than ${cap} bytes`);
    } finally {
      await handle.close();
    }
  }
  return entries.length === 0 ? { kind: "missing" } : { kind: "ok" };
}
