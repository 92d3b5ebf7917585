/**
 * What a work directory's own repository reads (README, "Security model": an agent's git sees its
 * start commit, not the object store): never the user's whole object store, which holds
 * every object the repository ever had, a secret from a commit that was reset away included. The
 * agent's repository is shallow at its start commit, so what it needs, and all it gets, is that
 * commit and its tree: a pack of exactly those, made once per mission and start commit beside the
 * mission's work directories, shown read-only to each that starts there.
 *
 * A later start commit of the mission (a retry from a newer queue head, a queue verification)
 * descends from one already packed: it gets a small pack of what it adds (the mission's own
 * commits since, `pack-objects --revs <commit> ^<packed>`), beside the first one. Its ancestry is
 * read through the repository's long-running `cat-file` (no process of its own); a commit that
 * descends from none packed gets a pack of its own tree.
 *
 * ```
 * <mission folder>/.objects/root-<commit>/pack/…   the start commit and its tree
 * <mission folder>/.objects/<root>..<commit>/pack/…   what a later commit adds to that root
 * ```
 *
 * Each work directory gets hard links to its packs in an object folder of its own
 * ({@link linkStartObjects}): the sandbox shows it that folder, inside its own work directory,
 * and nothing of the mission's folder (not even the name of the packs' folder).
 */
import { randomBytes } from "node:crypto";
import { chmod, copyFile, link, mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { parseCatFileBatch, parseCommit, readObjects, type Git } from "../git/index.ts";

/** The folder of a mission's start-commit packs, beside its work directories (never a work directory's label). */
export const START_OBJECTS = ".objects";

// How many commits back a later start commit is followed to a packed one: a mission's queue is
// one commit per item, and beyond this a pack of its own tree costs less than the walk.
const MAX_WALK = 2000;

const inFlight = new Map<string, Promise<readonly string[]>>();

/**
 * The object folders (alternates) of a work directory at `commit` in the mission `folder`, made
 * when missing. Safe side by side, in one process (one pack per commit) and across processes (a
 * pack is built aside and renamed into place; the first one wins).
 *
 * @param repoDir the repository whose store holds the commit
 */
export async function startObjects(input: { git: Git; repoDir: string; folder: string; commit: string }): Promise<readonly string[]> {
  const packs = join(input.folder, START_OBJECTS);
  const key = `${packs}\0${input.commit}`;
  let made = inFlight.get(key);
  if (made === undefined) {
    made = find(input, packs).finally(() => inFlight.delete(key));
    inFlight.set(key, made);
  }
  return made;
}

async function find(input: { git: Git; repoDir: string; commit: string }, packs: string): Promise<readonly string[]> {
  const root = join(packs, `root-${input.commit}`);
  if (await exists(root)) return [root];
  const roots = (await readdir(packs).catch(() => [] as string[])).filter((n) => n.startsWith("root-")).map((n) => n.slice(5));
  const ancestor = roots.length === 0 ? null : await packedAncestor(input.git, input.repoDir, input.commit, new Set(roots));
  if (ancestor === null) return [await pack(input, packs, root, [`--shallow ${input.commit}`, input.commit])];
  const added = join(packs, `${ancestor}..${input.commit}`);
  if (!(await exists(added))) await pack(input, packs, added, [input.commit, `^${ancestor}`]);
  return [join(packs, `root-${ancestor}`), added];
}

/** The nearest of `roots` that `commit` descends from, within {@link MAX_WALK} commits; null when none. */
async function packedAncestor(git: Git, repoDir: string, commit: string, roots: ReadonlySet<string>): Promise<string | null> {
  const seen = new Set<string>([commit]);
  let level = [commit];
  while (level.length > 0 && seen.size <= MAX_WALK) {
    // The repository's long-running `cat-file --batch` answers each level: no process per level.
    const { stdout } = await git(readObjects(repoDir, level));
    const next: string[] = [];
    for (const object of parseCatFileBatch(stdout.toString("latin1"))) {
      if (!("oid" in object) || object.type !== "commit") continue;
      for (const parent of parseCommit(object.content).parents) {
        if (roots.has(parent)) return parent;
        if (!seen.has(parent)) {
          seen.add(parent);
          next.push(parent);
        }
      }
    }
    level = next;
  }
  return null;
}

/**
 * Packs what `revs` name (`pack-objects --revs` input) into `target`, built aside and renamed
 * into place; readable by whoever the sandbox runs the agent as (its folders keep everyone else
 * out). Returns `target`, whoever made it.
 */
async function pack(input: { git: Git; repoDir: string }, packs: string, target: string, revs: readonly string[]): Promise<string> {
  await mkdir(packs, { recursive: true, mode: 0o700 });
  const aside = join(packs, `tmp-${randomBytes(6).toString("hex")}`);
  await mkdir(join(aside, "pack"), { recursive: true });
  try {
    await input.git({
      // No delta search, a fast compression: the objects are copied as the store holds them where it
      // can (a whole 50,000-file tree took a third of the CPU it took with git's usual search).
      args: [
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "pack.compression=1",
        "pack-objects",
        "--revs",
        "--quiet",
        "--delta-base-offset",
        "--window=0",
        join(aside, "pack", "pack"),
      ],
      cwd: input.repoDir,
      input: revs.map((r) => `${r}\n`).join(""),
    });
    // Whatever naruto's umask: as root, the agent reads them as a user of its own (sandbox-user.ts).
    for (const name of await readdir(join(aside, "pack"))) await chmod(join(aside, "pack", name), 0o444);
    for (const dir of [aside, join(aside, "pack")]) await chmod(dir, 0o755);
    await rename(aside, target).catch(async (error: unknown) => {
      if (!(await exists(target))) throw error;
    });
  } finally {
    await rm(aside, { recursive: true, force: true });
  }
  return target;
}

/**
 * Links the packs of `folders` (as {@link startObjects} gives them) into the object folder
 * `into`, made here; a file system without hard links gets copies. Packs before their indexes.
 */
export async function linkStartObjects(folders: readonly string[], into: string): Promise<void> {
  await mkdir(join(into, "pack"), { recursive: true });
  const files: { from: string; to: string }[] = [];
  for (const folder of folders) {
    for (const name of await readdir(join(folder, "pack"))) files.push({ from: join(folder, "pack", name), to: join(into, "pack", name) });
  }
  const order = (f: { to: string }) => (f.to.endsWith(".idx") ? 1 : 0);
  for (const f of files.sort((a, b) => order(a) - order(b))) {
    await link(f.from, f.to).catch(async (error: unknown) => {
      if (error instanceof Error && "code" in error && error.code === "EEXIST") return;
      await copyFile(f.from, f.to);
    });
  }
  for (const dir of [into, join(into, "pack")]) await chmod(dir, 0o755);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
