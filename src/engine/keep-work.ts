/**
 * Work an attempt did not finish is never thrown away (docs/architecture.md, PLATFORM.md: "work kept
 * when a limit hits"): whatever its work directory holds that differs from the start commit is
 * kept as a commit under `refs/naruto/attempts/<mission>/<item>/<n>`, whether it is within the
 * item's scope or not — nothing of it is checked or integrated, it is only kept for a person to
 * look at (`git diff <ref>^ <ref>`).
 */
import { gitText, type Git } from "../git/index.ts";
import { viewCall } from "../sandbox/index.ts";
import { acceptObjects, snapshotWorkDir } from "../sandbox/index.ts";
import type { WorkDir } from "../sandbox/index.ts";
import { commitTree } from "./checkpoint.ts";
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
  await git({ args: ["-c", "core.hooksPath=/dev/null", "update-ref", "-m", "naruto: keep unfinished work", ref, commit], cwd: input.repoDir });
  return { ref, commit };
}
