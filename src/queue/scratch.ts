import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { gitText, type Git } from "../git/index.ts";

/**
 * A fresh path under `<git-common-dir>/naruto/<kind>/` for the queue's temporary files and
 * scratch work trees: inside the repository's git directory, never in the user's work tree,
 * and shared by every linked work tree of the repository.
 */
export async function scratchPath(git: Git, repoDir: string, kind: "tmp" | "scratch", label: string): Promise<string> {
  const common = await gitText(git, { args: ["rev-parse", "--git-common-dir"], cwd: repoDir });
  const dir = join(isAbsolute(common) ? common : join(repoDir, common), "naruto", kind);
  await mkdir(dir, { recursive: true });
  return join(dir, `${label}-${randomBytes(6).toString("hex")}`);
}
