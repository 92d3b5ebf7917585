/**
 * What a killed run left in the mission's work trees. A live run removes each work tree when its
 * attempt ends; a run killed outright leaves them, with whatever its agents had done so far.
 * Before `naruto resume` starts those items again (in the same places), or `naruto cancel` ends
 * the mission, that work is kept as a commit under `refs/naruto/attempts/<mission>/<item>/<n>`,
 * as a timed-out attempt's partial work is (worker.ts), and then the work trees are removed.
 * Only for a mission no live run drives (its driver lock is held, mission-lock.ts).
 */
import { access, realpath } from "node:fs/promises";
import { join, sep } from "node:path";
import { removeMissionWorktrees, snapshotWorktree, worktreeArgs, worktreePath } from "../git/index.ts";
import { GitError, gitText, type Git } from "../git/run-git.ts";
import type { Mission } from "../mission/document.ts";
import { NARUTO_COMMITTER } from "../engine/integrate-batch.ts";
import { holdMission, MissionStillRunningError } from "./mission-lock.ts";
import { attemptRef } from "../engine/attempt.ts";
import { stopOrphanAgents } from "./orphan-agents.ts";
import { serialWorktrees } from "./serial-worktrees.ts";

/** Attempts whose work tree may hold unfinished work: the agent never got to a checkpoint. */
const UNFINISHED = new Set(["dispatched", "running", "interrupted", "cancelled"]);

/**
 * Keeps the unfinished work found in the mission's work trees and removes the work trees.
 * Returns item → what became of its work, for each item whose work tree held some: `its
 * unfinished work is kept at REF (COMMIT)`, or why it could not be kept (never dropped unsaid).
 */
export async function keepLeftoverWork(input: { git: Git; repoDir: string; commonDir: string; mission: Mission; now: () => Date }): Promise<Map<string, string>> {
  const { git, repoDir, mission } = input;
  const notes = new Map<string, string>();
  const worktrees = join(await realpath(input.commonDir), "worktrees") + sep;
  for (const item of mission.items) {
    const last = item.attempts.at(-1);
    if (!last || !UNFINISHED.has(last.status)) continue;
    const path = await worktreePath(git, repoDir, mission.id, item.id);
    if (!(await exists(path))) continue;
    // The work tree's own git folder, asked of git in it, must be one of this repository's:
    // an agent may have replaced `.git` in its work tree to point naruto elsewhere.
    const gitDir = await gitText(git, { args: ["rev-parse", "--absolute-git-dir"], cwd: path }).then(
      (dir) => realpath(dir),
      () => null,
    );
    if (gitDir === null || !gitDir.startsWith(worktrees)) {
      notes.set(item.id, "its unfinished work could not be kept: its work tree's .git no longer points into this repository");
      continue;
    }
    const worktree = { path, gitDir };
    try {
      const head = await gitText(git, { args: [...worktreeArgs(worktree), "rev-parse", "--verify", "HEAD^{commit}"], cwd: path });
      // The run may have been killed after the agent started but before the start was stored:
      // the work tree was made at the queue head, which its HEAD still descends from.
      const base = last.base ?? (await gitText(git, { args: ["merge-base", head, `refs/heads/${mission.queue.branch}`], cwd: repoDir }));
      const tree = await snapshotWorktree({ git, worktree, head });
      if (tree === (await gitText(git, { args: ["rev-parse", `${base}^{tree}`], cwd: repoDir }))) continue;
      const at = input.now().toISOString();
      const identity = { GIT_AUTHOR_NAME: NARUTO_COMMITTER.name, GIT_AUTHOR_EMAIL: NARUTO_COMMITTER.email, GIT_AUTHOR_DATE: at, GIT_COMMITTER_NAME: NARUTO_COMMITTER.name, GIT_COMMITTER_EMAIL: NARUTO_COMMITTER.email, GIT_COMMITTER_DATE: at };
      const message = `naruto: unfinished work of ${item.id}, attempt ${last.n}\n\nIts run was stopped before the agent finished; nothing of this was checked or integrated.\n`;
      const commit = await gitText(git, { args: ["commit-tree", tree, "-p", base], cwd: repoDir, env: identity, input: message });
      const ref = attemptRef(mission.id, item.id, last.n);
      await gitText(git, { args: ["update-ref", ref, commit], cwd: repoDir });
      notes.set(item.id, `its unfinished work is kept at ${ref} (${commit.slice(0, 12)})`);
    } catch (error) {
      // A work tree too broken for git to read (the agent's doing).
      if (!(error instanceof GitError)) throw error;
      notes.set(item.id, `its unfinished work could not be kept: git could not read its work tree (${error.message.split("\n").filter((l) => l.trim() !== "").at(-1) ?? "no message"})`);
    }
  }
  await removeMissionWorktrees({ git, repoDir, mission: mission.id });
  return notes;
}

/** What {@link tidyAfterKilledRun} did. */
export interface Tidied {
  /** Processes of the mission it stopped. */
  readonly stopped: readonly number[];
  /** Item → what became of its unfinished work (see {@link keepLeftoverWork}). */
  readonly work: ReadonlyMap<string, string>;
}

/**
 * For `naruto cancel`: when no live run drives the mission any more (it was killed), stops what
 * that run left running and keeps its unfinished work; a live run does both itself once it sees
 * the cancel. Null when a live run holds the mission.
 */
export async function tidyAfterKilledRun(input: { git: Git; repoDir: string; commonDir: string; mission: Mission; now: () => Date }): Promise<Tidied | null> {
  let release: () => Promise<void>;
  try {
    release = await holdMission(input.commonDir, input.mission.id);
  } catch (error) {
    if (error instanceof MissionStillRunningError) return null;
    throw error;
  }
  try {
    const stopped = await stopOrphanAgents(input.mission);
    // Another mission's run may be making work trees in this repository meanwhile.
    const git = serialWorktrees(input.git, { lockFile: join(input.commonDir, "naruto", "worktree.lock") });
    return { stopped, work: await keepLeftoverWork({ ...input, git }) };
  } finally {
    await release();
  }
}

const exists = (path: string) => access(path).then(() => true, () => false);
