/**
 * The quarantine of naruto's view (README, "Security model"): what naruto hashes of a work directory is
 * written to an object folder of the view's own (`GIT_OBJECT_DIRECTORY`), the repository's store
 * only read beside it (`GIT_ALTERNATE_OBJECT_DIRECTORIES`), as git's own receive-pack quarantines
 * a push until its hooks accept it. Only a checkpoint that is accepted (or work that is kept) has
 * its objects moved into the store; a refused attempt's go with its work directory, so nothing
 * an agent left grows the user's `.git` unless naruto keeps it.
 *
 * Moving is git's own way (tmp-objdir.c): every file is linked into place under its name, packs
 * before their indexes, an object the store already has left as it is; across file systems, a
 * copy under a temporary name is renamed into place, so no reader ever sees half a file.
 */
import { randomBytes } from "node:crypto";
import { copyFile, link, mkdir, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { GitView } from "./git-view.ts";

/**
 * Moves the view's quarantined objects into the repository's own object folder and removes the
 * quarantine; returns the same view without it (what it writes then goes to the store: the
 * checkpoint commit). A view without a quarantine is returned as it is.
 */
export async function acceptObjects(view: GitView): Promise<GitView> {
  const { incoming, ...direct } = view;
  const [store] = view.objects.objects;
  if (incoming === undefined || store === undefined) return view;
  await migrate(incoming, store);
  await rm(incoming, { recursive: true, force: true });
  return direct;
}

/** Every object file under `from` into `to`: loose objects by their folder, then packs, indexes last. */
async function migrate(from: string, to: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (!entry.isDirectory() || !/^[0-9a-f]{2}$/.test(entry.name)) continue;
    const files = await readdir(join(from, entry.name));
    if (files.length === 0) continue;
    await mkdir(join(to, entry.name), { recursive: true });
    await Promise.all(files.map((f) => place(join(from, entry.name, f), join(to, entry.name, f))));
  }
  const packs = await readdir(join(from, "pack")).catch(() => [] as string[]);
  if (packs.length === 0) return;
  await mkdir(join(to, "pack"), { recursive: true });
  // A reader finds a pack by its index: the index comes last.
  const order = (name: string) => (name.endsWith(".idx") ? 1 : 0);
  for (const name of [...packs].sort((a, b) => order(a) - order(b))) {
    if (/^pack-[0-9a-f]+\.[a-z]+$/.test(name)) await place(join(from, "pack", name), join(to, "pack", name));
  }
}

/** Puts `from` at `to` unless a file is there already (same name, same object). */
async function place(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
    return;
  } catch (error) {
    if (codeOf(error) === "EEXIST") return;
  }
  // Another file system, or one without hard links.
  const temp = join(to, "..", `tmp_naruto_${randomBytes(6).toString("hex")}`);
  await copyFile(from, temp);
  await rename(temp, to);
}

function codeOf(error: unknown): string | undefined {
  return error instanceof Error && "code" in error ? String(error.code) : undefined;
}
