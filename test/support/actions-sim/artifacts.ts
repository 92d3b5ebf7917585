/**
 * What actions/upload-artifact@v6 and download-artifact@v7 do with files, as the simulator's
 * standard steps do it: an upload zips the files (regular files, links followed, hidden files
 * left out unless asked for, nothing whose real path leaves the job's folder) and sends the zip to
 * the results service with the job's `ACTIONS_RUNTIME_TOKEN`; a download extracts a zip as
 * @actions/artifact (2.1.7 and later) does: an entry whose path leaves the target folder fails
 * the download ("Malformed extraction path"), folders are made, and every other entry —
 * a symbolic link's too — becomes a regular file with the entry's bytes.
 */
import { mkdir, readdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { dirname, join, normalize, relative, resolve, sep } from "node:path";
import { listZipEntries, readZipEntry } from "../../../src/action/artifact-zip.ts";
import { writeZip } from "../zip.ts";

/** An upload or download the real actions would refuse; the step fails with this message. */
export class ArtifactError extends Error {
  override readonly name = "ArtifactError";
}

async function listFiles(root: string, includeHidden: boolean): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((p) => includeHidden || !p.split(sep).some((part) => part.startsWith(".")))
    .sort();
}

function commonParent(paths: readonly string[]): string {
  const parts = paths.map((p) => dirname(p).split(sep));
  const first = parts[0] ?? [];
  let n = first.length;
  for (const p of parts) {
    let i = 0;
    while (i < n && p[i] === first[i]) i++;
    n = i;
  }
  const joined = first.slice(0, n).join(sep);
  return joined === "" ? sep : joined;
}

/**
 * The zip upload-artifact makes of `paths` (a single folder uploads its contents; files and
 * several paths keep their names below their common parent), with the names it holds; null when
 * there is no file. The simulator reads as root outside the machine, so a file whose real path
 * is outside `within` (the job's folder) is left out.
 */
export async function zipForUpload(input: {
  paths: readonly string[];
  includeHidden: boolean;
  within: string;
}): Promise<{ zip: Buffer; files: string[] } | null> {
  const existing = (await Promise.all(input.paths.map(async (p) => ((await stat(p).catch(() => null)) === null ? null : resolve(p))))).filter(
    (p) => p !== null,
  );
  if (existing.length === 0) return null;
  const single = existing.length === 1 && existing[0] !== undefined && (await stat(existing[0])).isDirectory() ? existing[0] : null;
  const base = single ?? commonParent(existing);
  const entries: { name: string; data: Buffer }[] = [];
  for (const path of existing) {
    const isDir = (await stat(path)).isDirectory();
    const files = isDir ? (await listFiles(path, input.includeHidden)).map((f) => join(path, f)) : [path];
    for (const file of files) {
      const rel = relative(base, file);
      if (!input.includeHidden && rel.split(sep).some((part) => part.startsWith("."))) continue;
      const real = await realpath(file).catch(() => null);
      if (real === null || !real.startsWith(input.within + sep)) continue;
      entries.push({ name: rel.split(sep).join("/"), data: await readFile(real) });
    }
  }
  if (entries.length === 0) return null;
  entries.sort((a, b) => a.name.localeCompare(b.name));
  return { zip: writeZip(entries), files: entries.map((e) => e.name) };
}

/** Extracts `zip` into `into` as @actions/artifact does; returns the files written. */
export async function extractArtifact(zip: Uint8Array, into: string): Promise<string[]> {
  const root = resolve(into);
  await mkdir(root, { recursive: true });
  const written: string[] = [];
  for (const entry of listZipEntries(zip, 100_000)) {
    const full = normalize(join(root, entry.name));
    if (!full.startsWith(root)) throw new ArtifactError(`Unable to download and extract artifact: Malformed extraction path: ${full}`);
    if (entry.kind === "directory") {
      await mkdir(full, { recursive: true });
      continue;
    }
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, readZipEntry(zip, { ...entry, kind: "file" }));
    written.push(relative(root, full));
  }
  return written;
}
