/**
 * The local mission store: each mission is a commit on `refs/naruto/missions/<id>`; a save makes
 * a commit whose parent is the version read and moves the ref with `git update-ref REF NEW OLD`,
 * git's own compare-and-swap. The history of the ref is the mission's history. Nothing touches
 * the user's work tree, index or branches.
 *
 * A version holds one record per item (src/mission/records.ts), so that a save writes what the event
 * changed: the store remembers the records of the version it saved or loaded last, and an item
 * that is the very object it was then (a step shares what it did not change, src/mission/draft.ts)
 * keeps its record. A save writes its objects in-process (loose-objects.ts) and starts one git,
 * the `update-ref`; a load of the version it knows reads the ref's loose file and starts none
 * (one `rev-parse` when the ref is packed, or moved).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseMission, type Mission, type MissionItem } from "../mission/index.ts";
import type { MissionStore, SaveResult, StoredMission } from "../mission/index.ts";
import { commitText, looseObjectsDir, startLooseObject, type LooseObjectType } from "../git/index.ts";
import {
  DOCUMENT_FILE,
  documentText,
  folderName,
  ITEMS_FOLDER,
  ITEMS_PER_FOLDER,
  itemFileName,
  itemPath,
  joinRecords,
  PROOF_FILE,
  recordText,
  treeContent,
  type TreeEntry,
} from "../mission/index.ts";
import { parseCatFileBatch, parseLsTree } from "../git/index.ts";
import { repoLayout } from "../git/index.ts";
import { GitError, gitText, type Git } from "../git/index.ts";

export const MISSION_REF_PREFIX = "refs/naruto/missions/";
/** As the old value of `update-ref`: the ref must not exist yet (in SHA-1 and SHA-256 repositories alike). */
const MISSING = "";
const IDENTITY = {
  GIT_AUTHOR_NAME: "naruto",
  GIT_AUTHOR_EMAIL: "naruto@localhost",
  GIT_COMMITTER_NAME: "naruto",
  GIT_COMMITTER_EMAIL: "naruto@localhost",
};

/** What the store knows of one stored version: the mission and the ids of its records. */
interface Known {
  readonly version: string;
  readonly mission: Mission;
  /** Per item: its record's blob (null: not known, e.g. a version in the old layout). */
  readonly itemBlobs: readonly (string | null)[];
  /** Per folder of 64 items: its tree (null: not known). */
  readonly folders: readonly (string | null)[];
  readonly proofBlob: string | null;
}

/**
 * Reads one stored version of a mission (any commit of its ref's history), in either layout.
 * @throws {MissionFormatError} when it is not a mission naruto can read.
 */
export async function readMissionVersion(git: Git, repoDir: string, commit: string): Promise<Mission> {
  return (await readVersion(git, repoDir, commit)).mission;
}

/** Every record file of one stored version, path → text (what the version holds, exactly as stored). */
export async function readMissionRecords(git: Git, repoDir: string, commit: string): Promise<Map<string, string>> {
  return (await readFiles(git, repoDir, commit)).files;
}

async function readFiles(git: Git, repoDir: string, commit: string): Promise<{ files: Map<string, string>; blobOf: Map<string, string> }> {
  const listed = await git({ args: ["--no-optional-locks", "ls-tree", "-r", "-z", "--full-tree", commit], cwd: repoDir });
  const entries = parseLsTree(listed.stdout.toString("utf8"));
  const objects = await git({ args: ["--no-optional-locks", "cat-file", "--batch"], cwd: repoDir, input: entries.map(([, e]) => `${e.oid}\n`).join("") });
  const contents = new Map<string, string>();
  for (const o of parseCatFileBatch(objects.stdout.toString("latin1"))) {
    if ("oid" in o) contents.set(o.oid, Buffer.from(o.content, "latin1").toString("utf8"));
  }
  const files = new Map(entries.map(([path, e]) => [path, contents.get(e.oid) ?? ""]));
  return { files, blobOf: new Map(entries.map(([path, e]) => [path, e.oid])) };
}

async function readVersion(git: Git, repoDir: string, commit: string): Promise<Known> {
  const { files, blobOf } = await readFiles(git, repoDir, commit);
  const mission = parseMission(joinRecords(files));
  return {
    version: commit,
    mission,
    itemBlobs: mission.items.map((_, i) => blobOf.get(itemPath(i)) ?? null),
    folders: [],
    proofBlob: blobOf.get(PROOF_FILE) ?? null,
  };
}

export function createLocalMissionStore({ git, repoDir }: { git: Git; repoDir: string }): MissionStore {
  const run = (args: string[], input?: string | Buffer) => gitText(git, { args, cwd: repoDir, env: IDENTITY, ...(input === undefined ? {} : { input }) });
  let objects: Promise<string | null> | null = null;
  /** The last version saved or loaded, by mission id: a save based on it writes only what changed. */
  const known = new Map<string, Known>();

  let commonDir: Promise<string | null> | null = null;
  /**
   * The ref's value as its loose file says, read without starting git; null when there is no
   * such file (a packed ref, another ref storage) or it holds no object id: then git is asked.
   * A loose ref is what git reads first, so a file holding the version the store knows means
   * that version is still the stored one (a load while nothing changed, the driver's every tick).
   */
  const looseRefValue = async (ref: string): Promise<string | null> => {
    const dir = await (commonDir ??= repoLayout(git, repoDir).then((l) => l.commonDir, () => null));
    if (dir === null) return null;
    const text = await readFile(join(dir, ref), "latin1").catch(() => null);
    const value = text?.trim() ?? "";
    return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(value) ? value : null;
  };

  /** The commit of one save, reusing every record of `base` whose item did not change. */
  const writeVersion = async (mission: Mission, parent: string | null, base: Known | undefined): Promise<Known> => {
    const dir = await (objects ??= looseObjectsDir(git, repoDir));
    // In a SHA-1 repository the objects are written in-process and side by side (their ids are
    // known before they are written); the commit is returned once all of them are. Else through git.
    const writes: Promise<void>[] = [];
    const write = async (type: LooseObjectType, content: Buffer): Promise<string> => {
      if (dir === null) return run(["hash-object", "-w", "-t", type, "--stdin"], content);
      const object = startLooseObject(dir, type, content);
      writes.push(object.written);
      // A save that fails before it waits for its writes must not leave one unhandled.
      object.written.catch(() => undefined);
      return object.id;
    };
    const same = (i: number, item: MissionItem) => base !== undefined && base.mission.items[i] === item && base.mission.items.length === mission.items.length;
    const itemBlobs: string[] = [];
    for (const [i, item] of mission.items.entries()) {
      itemBlobs.push((same(i, item) ? base?.itemBlobs[i] : null) ?? (await write("blob", Buffer.from(recordText(item)))));
    }
    const folders: string[] = [];
    for (let f = 0; f * ITEMS_PER_FOLDER < mission.items.length; f++) {
      const from = f * ITEMS_PER_FOLDER;
      const to = Math.min(from + ITEMS_PER_FOLDER, mission.items.length);
      let unchanged = base?.folders[f] ?? null;
      for (let i = from; i < to && unchanged !== null; i++) if (!same(i, mission.items[i] as MissionItem)) unchanged = null;
      const entries: TreeEntry[] = [];
      for (let i = from; i < to; i++) entries.push({ name: itemFileName(i), mode: "100644", id: itemBlobs[i] ?? "" });
      folders.push(unchanged ?? (await write("tree", treeContent(entries))));
    }
    const proofBlob = (base !== undefined && base.mission.proof === mission.proof ? base.proofBlob : null) ?? (await write("blob", Buffer.from(recordText(mission.proof))));
    const root: TreeEntry[] = [
      { name: DOCUMENT_FILE, mode: "100644", id: await write("blob", Buffer.from(documentText(mission))) },
      { name: PROOF_FILE, mode: "100644", id: proofBlob },
    ];
    if (folders.length > 0) {
      root.push({ name: ITEMS_FOLDER, mode: "40000", id: await write("tree", treeContent(folders.map((id, f) => ({ name: folderName(f), mode: "40000", id })))) });
    }
    const tree = await write("tree", treeContent(root));
    const message = `${mission.id}: ${mission.status} (seq ${mission.seq})`;
    const commit = await write("commit", commitText({ tree, parents: parent === null ? [] : [parent], identity: { name: IDENTITY.GIT_COMMITTER_NAME, email: IDENTITY.GIT_COMMITTER_EMAIL }, at: new Date(), message }));
    await Promise.all(writes);
    return { version: commit, mission, itemBlobs, folders, proofBlob };
  };

  return {
    async load(id: string): Promise<StoredMission | null> {
      const ref = MISSION_REF_PREFIX + id;
      const mine = known.get(id);
      if (mine !== undefined && (await looseRefValue(ref)) === mine.version) return { mission: mine.mission, version: mine.version };
      const { stdout } = await git({ args: ["--no-optional-locks", "rev-parse", "--verify", "--quiet", `${ref}^{commit}`], cwd: repoDir, okCodes: [1] });
      const version = stdout.toString("utf8").trim();
      if (version === "") return null;
      if (mine?.version === version) return { mission: mine.mission, version };
      const read = await readVersion(git, repoDir, version);
      known.set(id, read);
      return { mission: read.mission, version };
    },

    async save(mission: Mission, expected: string | null): Promise<SaveResult> {
      const base = known.get(mission.id);
      const written = await writeVersion(mission, expected, base?.version === expected ? base : undefined);
      try {
        await run(["update-ref", "-m", "naruto: save mission", MISSION_REF_PREFIX + mission.id, written.version, expected ?? MISSING]);
      } catch (e) {
        // update-ref refuses when the ref is no longer `expected`: another writer won the race.
        if (e instanceof GitError) return { ok: false, reason: "conflict" };
        throw e;
      }
      known.set(mission.id, written);
      return { ok: true, version: written.version };
    },

    async list(): Promise<string[]> {
      const out = await run(["for-each-ref", "--format=%(refname)", MISSION_REF_PREFIX]);
      return out === "" ? [] : out.split("\n").map((r) => r.slice(MISSION_REF_PREFIX.length));
    },

    async discard(id: string): Promise<void> {
      known.delete(id);
      // Without an old value `update-ref -d` deletes whatever is there, and a missing ref is fine.
      await run(["update-ref", "-m", "naruto: discard mission", "-d", MISSION_REF_PREFIX + id]);
    },
  };
}
