/**
 * Where naruto keeps its records of a mission: under `<git-common-dir>/naruto/` of the repository
 * it runs in (the user's, or a job's clone), never in a work tree (docs/architecture.md). State itself is in refs (`refs/naruto/missions/<id>`); these are
 * prompts, agent results, logs and reports.
 */
import { join } from "node:path";
import { repoLayout } from "../git/index.ts";
import type { Git } from "../git/index.ts";

export async function gitCommonDir(git: Git, repoDir: string): Promise<string> {
  return (await repoLayout(git, repoDir)).commonDir;
}

export function missionDir(commonDir: string, mission: string): string {
  return join(commonDir, "naruto", "missions", mission);
}

export function attemptDir(commonDir: string, mission: string, item: string, attempt: number): string {
  return join(commonDir, "naruto", "attempts", mission, item, String(attempt));
}
