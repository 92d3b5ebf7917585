/**
 * The local mission store: each mission is a commit on `refs/naruto/missions/<id>` holding
 * `mission.json`; a save makes a commit whose parent is the version read and moves the ref with
 * `git update-ref REF NEW OLD`, git's own compare-and-swap. The history of the ref is the
 * mission's history. Nothing touches the user's work tree, index or branches.
 *
 * A save writes its three objects in-process (loose-objects.ts) and starts one git, the
 * `update-ref`: the local driver saves after every event, and on a small machine four git
 * processes per save were a good part of naruto's own cost per item.
 */
import { parseMission, type Mission } from "../mission/document.ts";
import type { MissionStore, SaveResult, StoredMission } from "../mission/store.ts";
import { commitText, flatTree, looseObjectsDir, writeLooseObject } from "./loose-objects.ts";
import { GitError, gitText, type Git } from "./run-git.ts";

export const MISSION_REF_PREFIX = "refs/naruto/missions/";
/** As the old value of `update-ref`: the ref must not exist yet (in SHA-1 and SHA-256 repositories alike). */
const MISSING = "";
const IDENTITY = {
  GIT_AUTHOR_NAME: "naruto",
  GIT_AUTHOR_EMAIL: "naruto@localhost",
  GIT_COMMITTER_NAME: "naruto",
  GIT_COMMITTER_EMAIL: "naruto@localhost",
};

export function createLocalMissionStore({ git, repoDir }: { git: Git; repoDir: string }): MissionStore {
  const run = (args: string[], input?: string) => gitText(git, { args, cwd: repoDir, env: IDENTITY, ...(input === undefined ? {} : { input }) });
  let objects: Promise<string | null> | null = null;

  /** The commit of one save: in-process in a SHA-1 repository, else through git. */
  const writeCommit = async (mission: Mission, parent: string | null): Promise<string> => {
    const text = JSON.stringify(mission, null, 2) + "\n";
    const message = `${mission.id}: ${mission.status} (seq ${mission.seq})`;
    const dir = await (objects ??= looseObjectsDir(git, repoDir));
    if (dir === null) {
      const blob = await run(["hash-object", "-w", "--stdin"], text);
      const tree = await run(["mktree"], `100644 blob ${blob}\tmission.json\n`);
      return run(["commit-tree", tree, ...(parent === null ? [] : ["-p", parent]), "-m", message]);
    }
    const blob = await writeLooseObject(dir, "blob", Buffer.from(text));
    const tree = await writeLooseObject(dir, "tree", flatTree([{ name: "mission.json", blob }]));
    const commit = commitText({ tree, parents: parent === null ? [] : [parent], identity: { name: IDENTITY.GIT_COMMITTER_NAME, email: IDENTITY.GIT_COMMITTER_EMAIL }, at: new Date(), message });
    return writeLooseObject(dir, "commit", commit);
  };

  return {
    async load(id: string): Promise<StoredMission | null> {
      const ref = MISSION_REF_PREFIX + id;
      const { stdout } = await git({ args: ["--no-optional-locks", "rev-parse", "--verify", "--quiet", `${ref}^{commit}`], cwd: repoDir, okCodes: [1] });
      const version = stdout.toString("utf8").trim();
      if (version === "") return null;
      const json = await run(["cat-file", "blob", `${version}:mission.json`]);
      return { mission: parseMission(JSON.parse(json)), version };
    },

    async save(mission: Mission, expected: string | null): Promise<SaveResult> {
      const commit = await writeCommit(mission, expected);
      try {
        await run(["update-ref", "-m", "naruto: save mission", MISSION_REF_PREFIX + mission.id, commit, expected ?? MISSING]);
      } catch (e) {
        // update-ref refuses when the ref is no longer `expected`: another writer won the race.
        if (e instanceof GitError) return { ok: false, reason: "conflict" };
        throw e;
      }
      return { ok: true, version: commit };
    },

    async list(): Promise<string[]> {
      const out = await run(["for-each-ref", "--format=%(refname)", MISSION_REF_PREFIX]);
      return out === "" ? [] : out.split("\n").map((r) => r.slice(MISSION_REF_PREFIX.length));
    },

    async discard(id: string): Promise<void> {
      // Without an old value `update-ref -d` deletes whatever is there, and a missing ref is fine.
      await run(["update-ref", "-m", "naruto: discard mission", "-d", MISSION_REF_PREFIX + id]);
    },
  };
}
