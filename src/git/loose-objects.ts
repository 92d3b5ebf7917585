/**
 * git objects written without starting git: a loose object is the zlib-deflated
 * `<type> <size>\0<content>`, named by its SHA-1, written to a temporary file and renamed into
 * place (as git does, so a reader never sees half an object). Used where a save would otherwise
 * start three git processes for one small commit (the local mission store).
 *
 * Only for SHA-1 repositories: {@link looseObjectsDir} answers null for any other object format,
 * and callers then go through git.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { repoLayout } from "./repo-layout.ts";
import type { Git } from "./run-git.ts";

export type LooseObjectType = "blob" | "tree" | "commit";

/** The object database of the repository at `repoDir` when it is SHA-1 (honours GIT_OBJECT_DIRECTORY); else null. */
export async function looseObjectsDir(git: Git, repoDir: string): Promise<string | null> {
  const layout = await repoLayout(git, repoDir);
  return layout.format === "sha1" ? layout.objectsDir : null;
}

/** Writes one object and returns its id. Writing an object that exists already is harmless. */
export async function writeLooseObject(objectsDir: string, type: LooseObjectType, content: Buffer): Promise<string> {
  const object = startLooseObject(objectsDir, type, content);
  await object.written;
  return object.id;
}

/** The SHA-1 id of an object (its `<type> <size>\0` header and content), without writing it. */
export function looseObjectId(type: LooseObjectType, content: Buffer): string {
  return objectIdOf(Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]));
}

function objectIdOf(data: Buffer): string {
  return createHash("sha1").update(data).digest("hex");
}

/**
 * Starts writing one object and returns its id at once, with the write: objects that only name
 * each other (a tree its blobs, a commit its tree) can be written side by side, and whatever
 * points at them (a ref) waits for all the writes.
 */
export function startLooseObject(objectsDir: string, type: LooseObjectType, content: Buffer): { readonly id: string; readonly written: Promise<void> } {
  const data = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  const id = objectIdOf(data);
  const written = (async () => {
    const folder = join(objectsDir, id.slice(0, 2));
    const temp = join(objectsDir, `tmp_obj_naruto_${randomBytes(8).toString("hex")}`);
    // The fastest level: a mission's saves write many small objects, and git reads any level.
    await writeFile(temp, deflateSync(data, { level: 1 }), { mode: 0o444 });
    const target = join(folder, id.slice(2));
    if (!folders.has(folder)) await mkdir(folder, { recursive: true });
    try {
      await rename(temp, target);
    } catch (error) {
      // The folder was pruned meanwhile (`git gc` removes empty ones): made again.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      await mkdir(folder, { recursive: true });
      await rename(temp, target);
    }
    folders.add(folder);
  })();
  return { id, written };
}

/** The fan-out folders (`objects/ab/`) this process has made or written into: not made again. */
const folders = new Set<string>();

/** A tree of regular files directly in it (names without `/`), in git's order. */
export function flatTree(entries: readonly { name: string; blob: string }[]): Buffer {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
  return Buffer.concat(sorted.flatMap((e) => [Buffer.from(`100644 ${e.name}\0`), Buffer.from(e.blob, "hex")]));
}

/** A commit's text, as `git commit-tree` writes it (one identity for author and committer). */
export function commitText(p: { tree: string; parents: readonly string[]; identity: { name: string; email: string }; at: Date; message: string }): Buffer {
  const who = `${p.identity.name} <${p.identity.email}> ${Math.floor(p.at.getTime() / 1000)} +0000`;
  const lines = [`tree ${p.tree}`, ...p.parents.map((id) => `parent ${id}`), `author ${who}`, `committer ${who}`, "", p.message.endsWith("\n") ? p.message : `${p.message}\n`];
  return Buffer.from(lines.join("\n"));
}
