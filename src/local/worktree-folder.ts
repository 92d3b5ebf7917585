/**
 * Keeps the mission's work-tree folder (`<git-common-dir>/naruto/worktrees/<mission>/`, src/git's
 * WORKTREES_DIR) in place while the mission runs. Removing an attempt's work tree also removes
 * that folder when it is empty, and another attempt's work tree may be in the making there at
 * that moment; a marker file keeps the folder from ever being empty until the run ends.
 */
import { mkdir, realpath, rm, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { WORKTREES_DIR } from "../git/worktree.ts";
import { gitText, type Git } from "../git/run-git.ts";

const MARKER = ".naruto-run";

/** Pins the folder; the returned function unpins it (and removes it when nothing else is left). */
export async function pinWorktreeFolder(git: Git, repoDir: string, mission: string): Promise<() => Promise<void>> {
  const common = await gitText(git, { args: ["rev-parse", "--path-format=absolute", "--git-common-dir"], cwd: repoDir });
  const folder = join(await realpath(common), WORKTREES_DIR, mission);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, MARKER), `the folder of mission ${mission}'s work trees, kept while a run drives it\n`);
  return async () => {
    await rm(join(folder, MARKER), { force: true });
    await rmdir(folder).catch(() => undefined); // only when empty
  };
}
