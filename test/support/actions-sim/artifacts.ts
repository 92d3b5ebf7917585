/**
 * The artifacts of workflow runs, as actions/upload-artifact@v4 and download-artifact@v4 see
 * them: per run, by name, immutable (a second upload of a name fails), hidden files left out
 * unless asked for (`include-hidden-files`, default false since v4.4).
 */
import { cp, mkdir, readdir, realpath, stat } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";

/** An upload or download the real actions would refuse; the step fails with this message. */
export class ArtifactError extends Error {
  override readonly name = "ArtifactError";
}

export interface ArtifactStore {
  /**
   * Stores the files under `paths` as artifact `name` of `runId`; returns the files stored.
   * Files whose real path is outside `within` (the job's folder: its machine) are left out.
   */
  upload(input: { runId: number; name: string; paths: readonly string[]; includeHidden: boolean; within: string }): Promise<string[]>;
  /** The folder holding artifact `name` of `runId` (for a test hook that plays a compromised job). */
  dir(runId: number, name: string): string | undefined;
  names(runId: number): string[];
  /** Copies one artifact into `into`, or every artifact into `into/<name>/` (`merge` puts all in `into`). */
  download(input: { runId: number; name?: string; into: string; merge: boolean }): Promise<string[]>;
}

const VALID_NAME = /^[^"<>:|*?\\/\r\n]+$/;

async function listFiles(root: string, includeHidden: boolean): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((p) => includeHidden || !p.split(sep).some((part) => part.startsWith(".")))
    .sort();
}

export function createArtifactStore(root: string): ArtifactStore {
  const stored = new Map<number, Map<string, string>>();
  const ofRun = (runId: number): Map<string, string> => {
    let run = stored.get(runId);
    if (run === undefined) stored.set(runId, (run = new Map()));
    return run;
  };

  return {
    async upload({ runId, name, paths, includeHidden, within }) {
      if (!VALID_NAME.test(name)) throw new ArtifactError(`The artifact name is not valid: ${name}. Contains a character that is not allowed`);
      const run = ofRun(runId);
      if (run.has(name)) throw new ArtifactError(`Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run`);
      const existing = (await Promise.all(paths.map(async (p) => ((await stat(p).catch(() => null)) === null ? null : resolve(p))))).filter((p) => p !== null);
      if (existing.length === 0) return [];
      const dest = join(root, String(runId), name);
      // A single folder uploads its contents; files and several paths keep their names below
      // their common parent, as the action's "least common ancestor" rule does.
      const single = existing.length === 1 && existing[0] !== undefined && (await stat(existing[0])).isDirectory() ? existing[0] : null;
      const base = single ?? commonParent(existing);
      await mkdir(dest, { recursive: true });
      const files: string[] = [];
      for (const path of existing) {
        const isDir = (await stat(path)).isDirectory();
        const relFiles = isDir ? (await listFiles(path, includeHidden)).map((f) => join(path, f)) : [path];
        for (const file of relFiles) {
          const rel = relative(base, file);
          if (!includeHidden && rel.split(sep).some((part) => part.startsWith("."))) continue;
          // The simulator reads as root outside the machine: a symlink must not reach the host.
          const real = await realpath(file).catch(() => null);
          if (real === null || !real.startsWith(within + sep)) continue;
          await mkdir(dirname(join(dest, rel)), { recursive: true });
          await cp(file, join(dest, rel), { dereference: true });
          files.push(rel);
        }
      }
      run.set(name, dest);
      return files.sort();
    },
    dir: (runId, name) => stored.get(runId)?.get(name),
    names: (runId) => [...(stored.get(runId)?.keys() ?? [])].sort(),
    async download({ runId, name, into, merge }) {
      const run = stored.get(runId) ?? new Map<string, string>();
      const chosen = name === undefined ? [...run.entries()] : [[name, run.get(name)] as const];
      const done: string[] = [];
      for (const [artifact, dir] of chosen) {
        if (dir === undefined) throw new ArtifactError(`Unable to download artifact(s): Artifact not found for name: ${artifact}`);
        const target = name !== undefined || merge ? into : join(into, artifact);
        await mkdir(target, { recursive: true });
        await cp(dir, target, { recursive: true });
        done.push(artifact);
      }
      return done;
    },
  };
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
