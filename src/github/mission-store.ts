/**
 * The mission store on GitHub (DESIGN.md §6), the same contract as the local one: each mission
 * is a commit holding `mission.json` on its own branch, `refs/heads/naruto-state/<mission>`.
 * A save writes blob → tree → commit whose parent is the version that was read, then moves the
 * branch without force: GitHub's "not a fast forward" means another writer saved first, and
 * `applyEvent` reloads and re-applies. A new mission's branch is created; "reference already
 * exists" is the same lost race.
 *
 * Why a branch and not `refs/naruto/…` like the local store: GitHub's REST docs describe refs by
 * `heads/<branch>` and `tags/<tag>` only ("The :ref in the URL must be formatted as
 * heads/<branch name> for branches and tags/<tag name> for tags"; creating accepts any
 * `refs/…` name with two slashes, but reading, updating and pushing other namespaces is not
 * documented to work). `naruto/<mission>` is the queue branch and `naruto/<mission>--<item>`
 * the worker branches, and git cannot hold both `naruto/m-1` and `naruto/m-1/state`, so state
 * lives beside them under `naruto-state/`. Its commits share no history with the code.
 */
import { parseMission, type Mission } from "../mission/document.ts";
import type { MissionStore, SaveResult, StoredMission } from "../mission/store.ts";
import { NotFastForwardError, RefExistsError, RefMissingError } from "./errors.ts";
import type { GitHubPort } from "./port.ts";

export const GITHUB_STATE_REF_PREFIX = "refs/heads/naruto-state/";
const FILE = "mission.json";

/** A stored mission document that is not one naruto wrote. */
export class CorruptMissionError extends Error {
  override readonly name = "CorruptMissionError";
}

export interface GitHubMissionStoreOptions {
  readonly github: GitHubPort;
  /** Where mission refs live; default {@link GITHUB_STATE_REF_PREFIX}. */
  readonly refPrefix?: string;
}

export function createGitHubMissionStore({ github, refPrefix = GITHUB_STATE_REF_PREFIX }: GitHubMissionStoreOptions): MissionStore {
  if (!refPrefix.startsWith("refs/") || !refPrefix.endsWith("/")) throw new TypeError(`refPrefix ${JSON.stringify(refPrefix)}: a ref namespace such as refs/heads/naruto-state/`);

  return {
    async load(id: string): Promise<StoredMission | null> {
      const version = await github.getRef(refPrefix + checkId(id));
      if (version === null) return null;
      // Read at the commit, not the branch: the branch may move between the two requests.
      const text = await github.readFile({ path: FILE, ref: version });
      if (text === null) throw new CorruptMissionError(`${refPrefix + id} at ${version} has no ${FILE}: delete the ref or restore it from its history`);
      try {
        return { mission: parseMission(JSON.parse(text)), version };
      } catch (error) {
        throw new CorruptMissionError(`${refPrefix + id} at ${version}: ${FILE} is not a naruto mission: restore it from the ref's history`, { cause: error });
      }
    },

    async save(mission: Mission, expected: string | null): Promise<SaveResult> {
      const ref = refPrefix + checkId(mission.id);
      const blob = await github.createBlob(JSON.stringify(mission, null, 2) + "\n");
      const tree = await github.createTree({ entries: [{ path: FILE, mode: "100644", sha: blob }] });
      const commit = await github.createCommit({ message: `${mission.id}: ${mission.status} (seq ${mission.seq})`, tree, parents: expected === null ? [] : [expected] });
      try {
        if (expected === null) await github.createRef({ ref, sha: commit });
        else await github.updateRef({ ref, sha: commit, force: false });
      } catch (error) {
        // Each is another writer winning: it moved the ref, created it first, or deleted it.
        if (error instanceof NotFastForwardError || error instanceof RefExistsError || error instanceof RefMissingError) return { ok: false, reason: "conflict" };
        throw error;
      }
      return { ok: true, version: commit };
    },

    async list(): Promise<string[]> {
      const refs = await github.listRefs(refPrefix);
      return refs.map((r) => r.ref.slice(refPrefix.length)).filter((id) => id !== "" && !id.includes("/"));
    },
  };
}

// Mission ids become ref names: refuse anything git or the namespace could misread.
function checkId(id: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(id) || id.endsWith(".lock") || id.includes("..")) {
    throw new TypeError(`mission id ${JSON.stringify(id)} cannot name a ref: use letters, digits, ".", "_" and "-"`);
  }
  return id;
}
