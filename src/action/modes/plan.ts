/**
 * `plan` (read-only job): the request's own plan, or the planner agent's, written to the
 * `naruto-plan` artifact. The integrate job checks it again and records it: this job cannot
 * write the state, and what the planner wrote is untrusted.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { codeSpan } from "../../report/escape.ts";
import { ARTIFACT_FILES, type PlanArtifact } from "../artifacts.ts";
import type { ModeDeps } from "../deps.ts";
import { runPlanner } from "../planner.ts";
import { artifactFolder, ConfigInvalidError, loadMission, missionConfig, missionInput } from "./shared.ts";

export async function planMode(deps: ModeDeps, input: { mission: string }): Promise<void> {
  const id = missionInput(input.mission);
  deps.log.setOutput("mission", id);
  const out = await artifactFolder(deps);
  const { mission } = await loadMission(deps, id);
  if (mission.status !== "planning") {
    deps.log.info(`mission ${id} is ${mission.status}: there is nothing to plan`);
    await deps.log.summary(`naruto ${codeSpan(id)}: ${mission.status}, nothing to plan.`);
    return;
  }
  let outcome: PlanArtifact["outcome"];
  try {
    const config = await missionConfig(deps, mission);
    if (mission.plan_text !== null) {
      outcome = { kind: "plan", text: mission.plan_text };
    } else {
      const result = await deps.log.group("planner agent", () =>
        runPlanner({ git: deps.git, repoDir: deps.workspace, dir: join(deps.tempDir, "naruto-planner"), config, mission, env: deps.env }),
      );
      outcome = result.ok ? { kind: "plan", text: result.text } : { kind: "failed", reason: result.reason };
    }
  } catch (error) {
    if (!(error instanceof ConfigInvalidError)) throw error;
    outcome = { kind: "failed", reason: error.message };
  }
  const artifact: PlanArtifact = { schema: "naruto.plan-artifact/v1", mission: id, outcome };
  await writeFile(join(out, ARTIFACT_FILES.plan), JSON.stringify(artifact, null, 2) + "\n");
  const line = outcome.kind === "plan" ? "a plan is ready for the integrate job to check" : `planning failed: ${outcome.reason}`;
  deps.log.info(line);
  await deps.log.summary(`### naruto ${codeSpan(id)} · plan\n\n${line.split("\n")[0]}\n`);
}
