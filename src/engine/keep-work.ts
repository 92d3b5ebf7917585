/**
 * Work an attempt did not finish is never thrown away (docs/architecture.md, PLATFORM.md: "work kept
 * when a limit hits"): whatever its work directory holds that differs from the start commit is
 * kept as a commit under `refs/naruto/attempts/<mission>/<item>/<n>`, whether it is within the
 * item's scope or not — nothing of it is checked or integrated, it is only kept for a person to
 * look at (`git diff <ref>^ <ref>`). An attempt that ends unfinished keeps its work with
 * `keepWork`, which says where as its outcome's `work`.
 */
import { gatePolicy } from "../gate/index.ts";
import { gitText, refUpdate, updateRefs, type Git } from "../git/index.ts";
import type { KeptWork, Mission, MissionItem } from "../mission/index.ts";
import type { RepoPath } from "../plan/index.ts";
import { viewCall } from "../sandbox/index.ts";
import { acceptObjects, snapshotWorkDir } from "../sandbox/index.ts";
import type { WorkDir } from "../sandbox/index.ts";
import { checkpointWorkDir, commitTree } from "./checkpoint.ts";
import type { WorkerContext } from "./context.ts";
import { NARUTO_COMMITTER } from "./integrate-batch.ts";

/** Where an attempt's work is kept in the repository it ran in. */
export function attemptRef(mission: string, item: string, attempt: number): string {
  return `refs/naruto/attempts/${mission}/${item}/${attempt}`;
}

/**
 * Keeps what the work directory holds (see the header); null when nothing differs from the
 * start. `why` goes into the commit message.
 */
export async function keepUnfinishedWork(input: {
  git: Git;
  repoDir: string;
  workDir: WorkDir;
  mission: string;
  item: string;
  attempt: number;
  why: string;
  now: () => Date;
  /** `limits.max_file_size`: a larger file is left out, never read (see src/sandbox/refused-entries.ts). */
  maxFileSize: number;
}): Promise<{ ref: string; commit: string } | null> {
  const { git, workDir } = input;
  const snapshot = await snapshotWorkDir(git, workDir, { maxFileSize: input.maxFileSize });
  const start = await gitText(git, viewCall(snapshot.view, ["rev-parse", `${workDir.start}^{tree}`]));
  if (snapshot.tree === start) return null;
  // What naruto does not store (a pipe, a file over the limit, a name git refuses) is named, not dropped unsaid.
  const leftOut =
    snapshot.refused.length === 0 ? "" : `\nLeft out, as naruto never stores them: ${snapshot.refused.map((r) => `${r.path} (${r.rule})`).join(", ")}.\n`;
  const message = `naruto: unfinished work of ${input.item}, attempt ${input.attempt}\n\n${input.why}; nothing of this was checked or integrated.\n${leftOut}`;
  // Kept: its objects leave the quarantine for the store, where fast-import finds the tree.
  await acceptObjects(snapshot.view);
  const commit = await commitTree({ git, repoDir: input.repoDir, workDir, tree: snapshot.tree, message, author: NARUTO_COMMITTER, date: input.now() });
  const ref = attemptRef(input.mission, input.item, input.attempt);
  await git(updateRefs(input.repoDir, [refUpdate(ref, commit)], { message: "naruto: keep unfinished work", config: ["core.hooksPath=/dev/null"] }));
  return { ref, commit };
}

/** Keeps what an attempt that did not finish left; says where (null: it had changed nothing). */
export async function keepWork(
  ctx: WorkerContext,
  a: { workDir: WorkDir; mission: Mission; item: MissionItem; attempt: number; why: string; writes: RepoPath[]; summary: string | null },
): Promise<KeptWork | null> {
  // Within the item's scope it becomes a checkpoint-shaped commit on the worker branch (the
  // Action's work job carries it to the queue and publish jobs that way); otherwise a plain commit.
  const outcome = await checkpointWorkDir({
    git: ctx.git,
    repoDir: ctx.repoDir,
    workDir: a.workDir,
    mission: a.mission.id,
    item: { id: a.item.id, title: a.item.title, writes: a.writes, readonly: a.item.readonly },
    protected: ctx.config.protected,
    allowProtected: ctx.config.allow_protected,
    gate: gatePolicy(ctx.config),
    attempt: a.attempt,
    agent: a.item.agent,
    ...(a.summary ? { summary: a.summary } : {}),
    date: ctx.now(),
    keepAt: attemptRef(a.mission.id, a.item.id, a.attempt),
  });
  let kept: { ref: string; commit: string } | null = null;
  if (outcome.kind === "checkpointed") {
    kept = { ref: attemptRef(a.mission.id, a.item.id, a.attempt), commit: outcome.commit };
  } else if (outcome.kind === "out_of_scope") {
    kept = await keepUnfinishedWork({
      git: ctx.git,
      repoDir: ctx.repoDir,
      workDir: a.workDir,
      mission: a.mission.id,
      item: a.item.id,
      attempt: a.attempt,
      why: a.why,
      now: ctx.now,
      maxFileSize: ctx.config.limits.max_file_size,
    });
  }
  if (kept === null) return null;
  const ref = ctx.keptRef ? ctx.keptRef({ item: a.item.id, attempt: a.attempt }) : kept.ref;
  const outside = outcome.kind === "out_of_scope" ? [...new Set(outcome.violations.map((v) => `${v.path} (${v.rule})`))] : [];
  return { kind: "kept", ref, commit: kept.commit, outside };
}
