/**
 * The local mission store: each mission is a commit on `refs/naruto/missions/<id>`; a save makes
 * a commit whose parent is the version read and moves the ref with `git update-ref REF NEW OLD`,
 * git's own compare-and-swap. The history of the ref is the mission's history. Nothing touches
 * the user's work tree, index or branches.
 *
 * A version holds one record per item (src/mission/records.ts), so that a save writes what the event
 * changed: the store remembers the records of the version it saved or loaded last, and an item
 * that is the very object it was then (a step shares what it did not change, src/mission/draft.ts)
 * keeps its record. A save starts two gits: `fast-import` (naruto's one commit writer, which
 * writes the changed records on the version read) and the `update-ref`; a load of the version it
 * knows reads the ref's loose file and starts none (one `rev-parse` when the ref is packed, or moved).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseMission, type Mission } from "../mission/index.ts";
import type { MissionStore, SaveResult, StoredMission } from "../mission/index.ts";
import { rawIdent, rawText, readObjects, refUpdate, runFastImport, updateRefs, type ImportChange, type ImportCommit } from "../git/index.ts";
import { DOCUMENT_FILE, documentText, itemPath, joinRecords, missionFiles, PROOF_FILE, recordText } from "../mission/index.ts";
import { parseCatFileBatch, parseLsTree } from "../git/index.ts";
import { repoLayout } from "../git/index.ts";
import { GitError, gitText, type Git } from "../git/index.ts";

export const MISSION_REF_PREFIX = "refs/naruto/missions/";
const IDENTITY = { name: "naruto", email: "naruto@localhost" };

/** What the store knows of one stored version: the mission its records hold. */
interface Known {
  readonly version: string;
  readonly mission: Mission;
  /** Its tree holds one record per item (src/mission/records.ts); false: the old one-file layout. */
  readonly records: boolean;
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

async function readFiles(git: Git, repoDir: string, commit: string): Promise<{ files: Map<string, string> }> {
  const listed = await git({ args: ["--no-optional-locks", "ls-tree", "-r", "-z", "--full-tree", commit], cwd: repoDir });
  const entries = parseLsTree(listed.stdout.toString("utf8"));
  const objects = await git(
    readObjects(
      repoDir,
      entries.map(([, e]) => e.oid),
    ),
  );
  const contents = new Map<string, string>();
  for (const o of parseCatFileBatch(objects.stdout.toString("latin1"))) {
    if ("oid" in o) contents.set(o.oid, Buffer.from(o.content, "latin1").toString("utf8"));
  }
  const files = new Map(entries.map(([path, e]) => [path, contents.get(e.oid) ?? ""]));
  return { files };
}

async function readVersion(git: Git, repoDir: string, commit: string): Promise<Known> {
  const { files } = await readFiles(git, repoDir, commit);
  // A version in the old layout (one file) is read the same; the next save writes every record.
  return { version: commit, mission: parseMission(joinRecords(files)), records: files.has(DOCUMENT_FILE) };
}

export function createLocalMissionStore({ git, repoDir }: { git: Git; repoDir: string }): MissionStore {
  const run = (args: string[]) => gitText(git, { args, cwd: repoDir });
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
    const dir = await (commonDir ??= repoLayout(git, repoDir).then(
      (l) => l.commonDir,
      () => null,
    ));
    if (dir === null) return null;
    const text = await readFile(join(dir, ref), "latin1").catch(() => null);
    const value = text?.trim() ?? "";
    return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(value) ? value : null;
  };

  /**
   * The commit of one save, one `fast-import`: on top of `base` (the parent's records, when the
   * store knows them) only the records whose item changed, else every record on an empty tree.
   */
  const writeVersion = async (mission: Mission, parent: string | null, base: Known | undefined): Promise<Known> => {
    const changes: ImportChange[] = [];
    const file = (path: string, text: string): ImportChange => ({ path, after: { mode: "100644", content: Buffer.from(text) } });
    const reuse = base?.records && parent !== null && base.mission.items.length === mission.items.length;
    if (reuse) {
      for (const [i, item] of mission.items.entries()) if (base.mission.items[i] !== item) changes.push(file(itemPath(i), recordText(item)));
      if (base.mission.proof !== mission.proof) changes.push(file(PROOF_FILE, recordText(mission.proof)));
      changes.push(file(DOCUMENT_FILE, documentText(mission)));
    } else {
      for (const [path, text] of missionFiles(mission)) changes.push(file(path, text));
    }
    const who = rawIdent(IDENTITY, new Date());
    const message = rawText(`${mission.id}: ${mission.status} (seq ${mission.seq})\n`);
    const commit: ImportCommit = { author: who, committer: who, encoding: null, message, changes, deleteAll: !reuse };
    const [version = ""] = await runFastImport({ git, repoDir, from: parent, commits: [commit] });
    return { version, mission, records: true };
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
        await git(updateRefs(repoDir, [refUpdate(MISSION_REF_PREFIX + mission.id, written.version, expected)], { message: "naruto: save mission" }));
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
      // Without an old value a delete takes whatever is there, and a missing ref is fine.
      await git(updateRefs(repoDir, [{ verb: "delete", ref: MISSION_REF_PREFIX + id }], { message: "naruto: discard mission" }));
    },
  };
}
