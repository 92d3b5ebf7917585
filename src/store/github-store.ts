/**
 * The mission store on GitHub (docs/architecture.md), the same contract as the local one: each mission
 * is a commit on its own branch, `refs/heads/naruto-state/<mission>`, holding one record per item
 * (src/mission/records.ts), as the local store does. A save writes a tree and a commit whose
 * parent is the version that was read, then moves the branch without force: GitHub's "not a fast
 * forward" means another writer saved first, and `applyEvent` reloads and re-applies. A new
 * mission's branch is created; "reference already exists" is the same lost race.
 *
 * A save sends what changed: the records whose text differs from the version it is based on,
 * with that version's tree as `base_tree` (GitHub makes the folders), so a 256-item mission
 * uploads and stores a few kilobytes per event, not the whole document again. It costs three
 * requests (tree, commit, ref); a load two (the ref, and every record at once through GraphQL;
 * a mission too large for one answer a level of its tree at a time, mission-read.ts), one when
 * this process knows the version. Versions written before the records layout (the whole
 * document as `mission.json`) are still read, and the first save on one writes the records.
 *
 * Why a branch and not `refs/naruto/…` like the local store: GitHub's REST docs describe refs by
 * `heads/<branch>` and `tags/<tag>` only ("The :ref in the URL must be formatted as
 * heads/<branch name> for branches and tags/<tag name> for tags"; creating accepts any
 * `refs/…` name with two slashes, but reading, updating and pushing other namespaces is not
 * documented to work). `naruto/<mission>` is the queue branch and `naruto/<mission>--<item>`
 * the worker branches, and git cannot hold both `naruto/m-1` and `naruto/m-1/state`, so state
 * lives beside them under `naruto-state/`. Its commits share no history with the code.
 */
import { randomUUID } from "node:crypto";
import { parseMission, type Mission } from "../mission/index.ts";
import { DOCUMENT_FILE, joinRecords, missionFiles, WHOLE_DOCUMENT_FILE } from "../mission/index.ts";
import type { MissionStore, SaveResult, StoredMission } from "../mission/index.ts";
import { NotFastForwardError, RefExistsError, RefMissingError } from "../github/index.ts";
import { createMissionMemory, type StoredFiles } from "./github-memory.ts";
import { createVersionReader } from "./github-read.ts";
import type { GitHubPort, TreeEntry } from "../github/index.ts";

export const GITHUB_STATE_REF_PREFIX = "refs/heads/naruto-state/";

/**
 * Where the missions of one issue or pull request are indexed: a ref per mission,
 * `<prefix>by-issue/<number>/<mission>`, made with the mission. `/naruto approve`, `status`,
 * `retry` and `cancel` list the issue's refs (one request) instead of loading every mission the
 * repository ever had. The ref's target is the mission's first save; only its name is read.
 */
export function issueIndexPrefix(issue: number, refPrefix: string = GITHUB_STATE_REF_PREFIX): string {
  return `${refPrefix}by-issue/${issue}/`;
}
const CONFLICT = { ok: false, reason: "conflict" } as const;

/** A stored mission document that is not one naruto wrote. */
export class CorruptMissionError extends Error {
  override readonly name = "CorruptMissionError";
}

export interface GitHubMissionStoreOptions {
  readonly github: GitHubPort;
  /** Where mission refs live; default {@link GITHUB_STATE_REF_PREFIX}. */
  readonly refPrefix?: string;
  /** A unique value per save (default a random UUID). */
  readonly nonce?: () => string;
}

export function createGitHubMissionStore({ github, refPrefix = GITHUB_STATE_REF_PREFIX, nonce = randomUUID }: GitHubMissionStoreOptions): MissionStore {
  if (!refPrefix.startsWith("refs/") || !refPrefix.endsWith("/"))
    throw new TypeError(`refPrefix ${JSON.stringify(refPrefix)}: a ref namespace such as refs/heads/naruto-state/`);
  const memory = createMissionMemory();

  const read = async (id: string): Promise<({ version: string } & StoredFiles) | null> => {
    const version = await github.getRef(refPrefix + id);
    if (version === null) return null;
    // Read at the commit, not the branch: the branch may move between the two requests.
    const stored = memory.stored(id, version) ?? (await readStored(id, version));
    memory.remember(id, version, stored);
    return { version, ...stored };
  };

  /** Every record of a version: all at once, and those GitHub gives no text for (over 512,000 bytes) one by one. */
  const readVersion = createVersionReader(github);
  const readStored = async (id: string, version: string): Promise<StoredFiles> => {
    const ref = refPrefix + id;
    const found = await readVersion(id, version);
    const files = new Map<string, string>();
    for (const file of found?.files ?? []) files.set(file.path, file.text ?? (await github.readBlob(file.sha)));
    if (found === null || !(files.has(DOCUMENT_FILE) || files.has(WHOLE_DOCUMENT_FILE))) {
      throw new CorruptMissionError(
        `${ref} at ${version} has neither ${DOCUMENT_FILE} nor ${WHOLE_DOCUMENT_FILE}: delete the ref or restore it from its history`,
      );
    }
    return { tree: found.tree, files };
  };

  /** The tree of a save: on top of the version it is based on, the records that changed; else every record. */
  const writeTree = async (files: ReadonlyMap<string, string>, base: StoredFiles | undefined): Promise<string> => {
    const entry = ([path, content]: [string, string]): TreeEntry => ({ path, mode: "100644", content });
    // A file of the base that the new version lacks (the old layout's `mission.json`) means a whole tree.
    if (base === undefined || [...base.files.keys()].some((path) => !files.has(path))) return github.createTree({ entries: [...files].map(entry) });
    const changed = [...files].filter(([path, text]) => base.files.get(path) !== text);
    return changed.length === 0 ? base.tree : github.createTree({ base: base.tree, entries: changed.map(entry) });
  };

  const save = async (mission: Mission, expected: string | null): Promise<SaveResult> => {
    const ref = refPrefix + mission.id;
    // Based on a version this process saw replaced: it cannot win, so ask GitHub nothing.
    if (expected !== null && memory.isStale(expected)) return CONFLICT;
    const files = missionFiles(mission);
    const tree = await writeTree(files, expected === null ? undefined : memory.stored(mission.id, expected));
    // A save is unique even when two writers make the same mission from the same version
    // (a redelivered webhook): equal commits would have equal shas, and moving a ref to where
    // it already points is a fast-forward, so both would "win" and both act on the commands.
    const message = `${mission.id}: ${mission.status} (seq ${mission.seq})\n\nNaruto-Save: ${nonce()}`;
    const commit = await github.createCommit({ message, tree, parents: expected === null ? [] : [expected] });
    try {
      if (expected === null) {
        // The index first: a mission that exists is always found by its issue. A mission that
        // then loses the race for its own ref leaves an index ref that names the same id.
        await indexByIssue(mission, commit);
        await github.createRef({ ref, sha: commit });
      } else await github.updateRef({ ref, sha: commit, force: false });
    } catch (error) {
      // Each is another writer winning: it moved the ref, created it first, or deleted it.
      if (error instanceof NotFastForwardError || error instanceof RefExistsError || error instanceof RefMissingError) return CONFLICT;
      throw error;
    }
    if (expected !== null) memory.retire(expected);
    memory.remember(mission.id, commit, { tree, files });
    return { ok: true, version: commit };
  };

  const indexByIssue = async (mission: Mission, commit: string): Promise<void> => {
    if (mission.source.kind !== "github") return;
    try {
      await github.createRef({ ref: issueIndexPrefix(mission.source.issue, refPrefix) + mission.id, sha: commit });
    } catch (error) {
      // Made already: by a writer racing this one, or by the sweep for a mission made before the index.
      if (!(error instanceof RefExistsError)) throw error;
    }
  };

  return {
    async load(id: string): Promise<StoredMission | null> {
      const found = await memory.shared(checkId(id), () => read(id));
      if (found === null) return null;
      try {
        // Parsed per caller: writers never share one mission object.
        return { mission: parseMission(joinRecords(found.files)), version: found.version };
      } catch (error) {
        throw new CorruptMissionError(`${refPrefix + id} at ${found.version} is not a naruto mission: restore it from the ref's history`, { cause: error });
      }
    },

    // One save per mission at a time in this process: the losers of a burst then fail from
    // memory instead of each writing a tree and a commit that cannot win.
    save: async (mission, expected) => memory.serial(checkId(mission.id), () => save(mission, expected)),

    async list(): Promise<string[]> {
      const refs = await github.listRefs(refPrefix);
      // The index refs (`by-issue/…`) have slashes; mission ids never do.
      return refs.map((r) => r.ref.slice(refPrefix.length)).filter((id) => id !== "" && !id.includes("/"));
    },

    async discard(id: string): Promise<void> {
      await memory.serial(checkId(id), async () => {
        const found = await read(id).catch((error: unknown) => {
          if (error instanceof CorruptMissionError) return null;
          throw error;
        });
        const document = found === null ? undefined : (found.files.get(DOCUMENT_FILE) ?? found.files.get(WHOLE_DOCUMENT_FILE));
        const source = document === undefined ? null : (JSON.parse(document) as Partial<Mission>).source;
        if (source?.kind === "github") await github.deleteRef(issueIndexPrefix(source.issue, refPrefix) + id);
        await github.deleteRef(refPrefix + id);
      });
    },
  };
}

/**
 * A backoff for `applyEvent` against GitHub: a save takes three round trips, so racing writers
 * in separate processes (jobs, App replicas) spread out over up to seconds, not milliseconds,
 * and spend fewer of GitHub's content-creating requests on saves that cannot win.
 *
 * @example applyEvent(store, id, event, { backoff: githubSaveBackoff })
 */
export function githubSaveBackoff(attempt: number, random: () => number = Math.random): Promise<void> {
  const ms = random() * Math.min(250 * 2 ** attempt, 5000);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Mission ids become ref names: refuse anything git or the namespace could misread.
function checkId(id: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(id) || id.endsWith(".lock") || id.includes("..")) {
    throw new TypeError(`mission id ${JSON.stringify(id)} cannot name a ref: use letters, digits, ".", "_" and "-"`);
  }
  return id;
}
