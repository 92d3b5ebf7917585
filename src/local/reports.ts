/**
 * Writes a mission's report next to its state: `report.md` for people and `result.json` (the
 * contract of README, "naruto run --json") for tools, under `<git-common-dir>/naruto/missions/<id>/`, both
 * through the redactor (docs/architecture.md, "What leaves").
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Mission } from "../mission/index.ts";
import { missionReport, missionResult } from "../report/index.ts";
import { missionDir } from "../engine/index.ts";
import { redactJson, type Redactor } from "../redact/index.ts";

export async function writeReports(commonDir: string, mission: Mission, redactor: Redactor): Promise<{ markdown: string; json: string }> {
  const dir = missionDir(commonDir, mission.id);
  await mkdir(dir, { recursive: true });
  const markdown = join(dir, "report.md");
  const json = join(dir, "result.json");
  await writeFile(markdown, redactor.redact(missionReport(mission, { logs: join(commonDir, "naruto", "attempts", mission.id) })));
  await writeFile(json, `${JSON.stringify(redactJson(missionResult(mission), redactor), null, 2)}\n`);
  return { markdown, json };
}

export function reportPaths(commonDir: string, id: string): { markdown: string; json: string } {
  const dir = missionDir(commonDir, id);
  return { markdown: join(dir, "report.md"), json: join(dir, "result.json") };
}
