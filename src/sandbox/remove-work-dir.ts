/**
 * Removing work directories, whatever the agent left in them (folders it made unreadable or
 * unwritable are opened up first), and the mission folders they stand in; finding those a
 * killed run left there.
 */
import { chmod, lstat, readdir, rename, rm, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { START_OBJECTS } from "./start-objects.ts";
import { readUntrusted } from "./untrusted-file.ts";
import type { WorkDir, WorkDirRecord } from "./work-dir.ts";

/**
 * Removes a work directory, whatever the agent left: folders it made unreadable or unwritable
 * are opened up first. Safe to call twice.
 */
export async function removeWorkDir(dir: Pick<WorkDir, "root">): Promise<void> {
  try {
    await rm(dir.root, { recursive: true, force: true });
  } catch {
    await openUp(dir.root);
    await rm(dir.root, { recursive: true, force: true });
  }
}

/**
 * Removes a work directory without waiting for it: renamed at once (a later run that finds it
 * takes it for a folder without a record, never for unfinished work, and removes it), deleted in
 * the background. Returns the deletion; where the rename fails, the deletion is done first.
 */
export async function retireWorkDir(dir: Pick<WorkDir, "root">): Promise<{ readonly removed: Promise<void> }> {
  const retired = `${dir.root}.removed`;
  const moved = await rename(dir.root, retired).then(
    () => true,
    () => false,
  );
  if (!moved) await removeWorkDir(dir);
  return { removed: moved ? removeWorkDir({ root: retired }) : Promise.resolve() };
}

async function openUp(path: string): Promise<void> {
  const info = await lstat(path).catch(() => null);
  if (info === null || !info.isDirectory()) return;
  await chmod(path, 0o700).catch(() => undefined);
  for (const name of await readdir(path).catch(() => [] as string[])) await openUp(join(path, name));
}

/**
 * The work directories left in a mission's folder (a run that was killed leaves them), each with
 * its record; folders without a readable record are returned with `record: null`.
 */
export async function listMissionWorkDirs(folder: string): Promise<{ root: string; record: WorkDirRecord | null }[]> {
  await chmod(folder, 0o700).catch(() => undefined);
  try {
    // The start commits' packs are the mission's, not a work directory.
    const names = (await readdir(folder).catch(() => [] as string[])).filter((n) => n !== START_OBJECTS);
    const found: { root: string; record: WorkDirRecord | null }[] = [];
    for (const name of names.sort()) {
      const root = join(folder, name);
      // Read as an agent's file: without the sandbox an agent could have reached it.
      const read = await readUntrusted(join(root, "naruto", "work-dir.json"), 1024 * 1024);
      const text = read.kind === "ok" ? read.bytes.toString("utf8") : null;
      let record: WorkDirRecord | null = null;
      try {
        const parsed = text === null ? null : (JSON.parse(text) as WorkDirRecord);
        if (parsed?.schema === "naruto.work-dir/v1" && parsed.dir.root === root) record = parsed;
      } catch {
        record = null;
      }
      found.push({ root, record });
    }
    return found;
  } finally {
    await chmod(folder, 0o300).catch(() => undefined);
  }
}

/**
 * Removes a mission's folder when no work directory is left in it (a run's end), with the packs
 * of its start commits; one that still holds some (another run of the mission's, a killed one's)
 * stays, packs and all. Safe when absent.
 */
export async function removeEmptyMissionFolder(folder: string): Promise<void> {
  if ((await listMissionWorkDirs(folder)).length === 0) await rm(join(folder, START_OBJECTS), { recursive: true, force: true });
  await rmdir(folder).catch(() => undefined);
}

/** Removes a mission's folder once its work directories are gone (or kept); safe when absent. */
export async function removeMissionFolder(folder: string): Promise<void> {
  await openUp(folder);
  await rm(folder, { recursive: true, force: true });
}
