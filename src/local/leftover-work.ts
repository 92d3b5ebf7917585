/**
 * What a killed run left in the mission's work directories. A live run removes each work
 * directory when its attempt ends; a run killed outright leaves them, with whatever its agents
 * had done so far. Before `naruto resume` starts those items again, or `naruto cancel` ends the
 * mission, that work is kept as a commit under `refs/naruto/attempts/<mission>/<item>/<n>`, as a
 * timed-out attempt's partial work is (src/engine/keep-work.ts), and then every work directory of
 * the mission is removed. Only for a mission no live run drives any more (its driver lock is
 * held, mission-lock.ts).
 */
import { join } from "node:path";
import { keepUnfinishedWork } from "../engine/index.ts";
import { GitError, type Git } from "../git/index.ts";
import type { KeptWork, Mission } from "../mission/index.ts";
import { listMissionWorkDirs, missionWorkFolder, removeMissionFolder, removeWorkDir, workRepo, type WorkDir } from "../sandbox/index.ts";
import { DEFAULT_MAX_FILE_SIZE } from "../gate/index.ts";
import { configAt, ConfigInvalidError } from "./config-at.ts";
import { holdMission, MissionStillRunningError } from "./mission-lock.ts";
import { stopOrphanAgents } from "./orphan-agents.ts";

/** Attempts whose work directory may hold unfinished work: the agent never got to a checkpoint. */
const UNFINISHED = new Set(["dispatched", "running", "interrupted", "cancelled"]);

export interface LeftoverInput {
  readonly git: Git;
  readonly repoDir: string;
  readonly mission: Mission;
  /** The per-user folder of work directories the run used. */
  readonly workRoot: string;
  readonly now: () => Date;
  /** `limits.max_file_size`: a larger file of the work is left out, never read. */
  readonly maxFileSize: number;
}

/**
 * Keeps the unfinished work found in the mission's work directories and removes them all.
 * Returns item → what became of its work, for each item whose directory held some: kept at a
 * ref, or why it could not be kept (never dropped unsaid).
 */
export async function keepLeftoverWork(input: LeftoverInput): Promise<Map<string, KeptWork>> {
  const { git, repoDir, mission } = input;
  const notes = new Map<string, KeptWork>();
  const folder = missionWorkFolder(input.workRoot, await workRepo(git, repoDir), mission.id);
  for (const { root, record } of await listMissionWorkDirs(folder)) {
    const item = record === null ? undefined : mission.items.find((i) => i.id === record.purpose);
    const last = item?.attempts.at(-1);
    if (record !== null && item && last && record.attempt === last.n && UNFINISHED.has(last.status) && sameRepository(record.dir, folder, root)) {
      const note = await keep(input, record.dir, item.id, last.n);
      if (note !== null) notes.set(item.id, note);
    }
    await removeWorkDir({ root });
  }
  await removeMissionFolder(folder);
  return notes;
}

/** A record naruto wrote for this very folder (a record copied in from elsewhere is not followed). */
function sameRepository(dir: WorkDir, folder: string, root: string): boolean {
  return dir.root === root && dir.path === join(root, "work") && dir.private === join(root, "naruto") && root.startsWith(`${folder}/`);
}

async function keep(input: LeftoverInput, dir: WorkDir, item: string, attempt: number): Promise<KeptWork | null> {
  try {
    const kept = await keepUnfinishedWork({
      git: input.git,
      repoDir: input.repoDir,
      workDir: dir,
      mission: input.mission.id,
      item,
      attempt,
      why: "Its run was stopped before the agent finished",
      now: input.now,
      maxFileSize: input.maxFileSize,
    });
    return kept === null ? null : { kind: "kept", ref: kept.ref, commit: kept.commit, outside: [] };
  } catch (error) {
    // A work directory too broken for git to read (the agent's doing).
    if (!(error instanceof GitError)) throw error;
    return {
      kind: "not_kept",
      why: `git could not read its work directory (${
        error.message
          .split("\n")
          .filter((l) => l.trim() !== "")
          .at(-1) ?? "no message"
      })`,
    };
  }
}

/** What {@link tidyAfterKilledRun} did. */
export interface Tidied {
  /** Processes of the mission it stopped. */
  readonly stopped: readonly number[];
  /** Item → what became of its unfinished work (see {@link keepLeftoverWork}). */
  readonly work: ReadonlyMap<string, KeptWork>;
}

/**
 * For `naruto cancel`: when no live run drives the mission any more (it was killed), stops what
 * that run left running and keeps its unfinished work; a live run does both itself once it sees
 * the cancel. Null when a live run holds the mission.
 */
export async function tidyAfterKilledRun(input: Omit<LeftoverInput, "maxFileSize"> & { commonDir: string }): Promise<Tidied | null> {
  let release: () => Promise<void>;
  try {
    release = await holdMission(input.commonDir, input.mission.id);
  } catch (error) {
    if (error instanceof MissionStillRunningError) return null;
    throw error;
  }
  try {
    const stopped = await stopOrphanAgents(input.mission);
    // The mission's limit, or the default where its config no longer loads: the work is kept all the same.
    const config = await configAt(input.git, input.repoDir, input.mission.base.commit).catch((error: unknown) => {
      if (error instanceof ConfigInvalidError) return null;
      throw error;
    });
    return { stopped, work: await keepLeftoverWork({ ...input, maxFileSize: config?.limits.max_file_size ?? DEFAULT_MAX_FILE_SIZE }) };
  } finally {
    await release();
  }
}
