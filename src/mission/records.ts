/**
 * How both stores lay a mission out in git (issue 15; the local store in .git, the GitHub store
 * on its state branch): one record per item, so that a save writes what changed and not the
 * whole document again. A version's tree:
 *
 *     document.json            the mission without `items` and `proof`
 *     proof.json               the no-overlap proof (written when planned, then shared)
 *     items/0000/00000.json    item 0 … item 63 (64 items per folder)
 *     items/0001/00064.json    …
 *
 * A save writes the document, the items the event changed, their folders, `items` and the root:
 * O(change + items ÷ 64) bytes, not O(mission). Versions written before this layout hold the
 * whole document as `mission.json` and are still read ({@link joinRecords}).
 */
import type { Mission } from "./document.ts";

export const DOCUMENT_FILE = "document.json";
export const PROOF_FILE = "proof.json";
export const ITEMS_FOLDER = "items";
/** The layout before per-item records: the whole document in one file. */
export const WHOLE_DOCUMENT_FILE = "mission.json";
/** Items per folder of `items/`: a changed item rewrites its folder (64 entries) and `items` (n ÷ 64). */
export const ITEMS_PER_FOLDER = 64;

export const folderName = (folder: number) => String(folder).padStart(4, "0");
export const itemFileName = (index: number) => `${String(index).padStart(5, "0")}.json`;

/** The record texts of a mission, item by item. */
export function documentText(mission: Mission): string {
  const { items: _items, proof: _proof, ...rest } = mission;
  return `${JSON.stringify(rest, null, 2)}\n`;
}

export function recordText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The path of item `index`'s record. */
export function itemPath(index: number): string {
  return `${ITEMS_FOLDER}/${folderName(Math.floor(index / ITEMS_PER_FOLDER))}/${itemFileName(index)}`;
}

/** Every record file of a mission, path → text: what a version holds. */
export function missionFiles(mission: Mission): Map<string, string> {
  const files = new Map([
    [DOCUMENT_FILE, documentText(mission)],
    [PROOF_FILE, recordText(mission.proof)],
  ]);
  for (const [i, item] of mission.items.entries()) files.set(itemPath(i), recordText(item));
  return files;
}

/** A tree entry: a file or a folder. */
export interface TreeEntry {
  readonly name: string;
  readonly mode: "100644" | "40000";
  readonly id: string;
}

/** A tree object's content, entries in git's order (a folder sorts as if its name ended in `/`). */
export function treeContent(entries: readonly TreeEntry[]): Buffer {
  const key = (e: TreeEntry) => Buffer.from(e.mode === "40000" ? `${e.name}/` : e.name);
  const sorted = [...entries].sort((a, b) => Buffer.compare(key(a), key(b)));
  return Buffer.concat(sorted.flatMap((e) => [Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.id, "hex")]));
}

/** The stored version's files, by path, as read back (`ls-tree -r` and their contents). */
export type RecordFiles = ReadonlyMap<string, string>;

/** The record layout is not what this naruto writes or reads. */
export class MissionRecordsError extends Error {
  override readonly name = "MissionRecordsError";
}

/**
 * The mission document (unchecked JSON, for `parseMission`) of a stored version's files, in either
 * layout, with each item's position.
 *
 * @throws {MissionRecordsError} when neither layout is there or an item is missing.
 */
export function joinRecords(files: RecordFiles): unknown {
  const whole = files.get(WHOLE_DOCUMENT_FILE);
  if (whole !== undefined) return JSON.parse(whole);
  const document = files.get(DOCUMENT_FILE);
  if (document === undefined) throw new MissionRecordsError(`the stored version has neither ${DOCUMENT_FILE} nor ${WHOLE_DOCUMENT_FILE}`);
  const items: unknown[] = [];
  for (const [path, text] of files) {
    const match = /^items\/(\d{4})\/(\d{5})\.json$/.exec(path);
    if (!match) continue;
    const index = Number(match[2]);
    if (Math.floor(index / ITEMS_PER_FOLDER) !== Number(match[1])) throw new MissionRecordsError(`item record ${path} is in the wrong folder`);
    items[index] = JSON.parse(text);
  }
  for (let i = 0; i < items.length; i++) if (!(i in items)) throw new MissionRecordsError(`the stored version has no record for item ${i}`);
  const proof = files.get(PROOF_FILE);
  return { ...(JSON.parse(document) as object), proof: proof === undefined ? null : JSON.parse(proof), items };
}
