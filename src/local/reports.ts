/**
 * Writes a mission's report next to its state: `report.md` for people and `result.json` (the
 * contract of DESIGN.md §13) for tools, under `<git-common-dir>/naruto/missions/<id>/`.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Mission } from "../mission/document.ts";
import { missionReport, missionResult } from "../report/index.ts";
import { missionDir } from "../engine/records.ts";

export async function writeReports(commonDir: string, mission: Mission): Promise<{ markdown: string; json: string }> {
  const dir = missionDir(commonDir, mission.id);
  await mkdir(dir, { recursive: true });
  const markdown = join(dir, "report.md");
  const json = join(dir, "result.json");
  await writeFile(markdown, missionReport(mission, { logs: join(commonDir, "naruto", "attempts", mission.id) }));
  await writeFile(json, JSON.stringify(missionResult(mission), null, 2) + "\n");
  return { markdown, json };
}

export function reportPaths(commonDir: string, id: string): { markdown: string; json: string } {
  const dir = missionDir(commonDir, id);
  return { markdown: join(dir, "report.md"), json: join(dir, "result.json") };
}
