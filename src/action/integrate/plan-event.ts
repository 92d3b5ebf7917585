/**
 * The plan job's artifact becomes `planned` or `planning_failed`. The plan text is untrusted (a
 * comment, an issue or the planner agent wrote it): it is checked here again with the config's
 * limits and protected paths, and its proof built here, by the job that writes the state.
 */
import type { Config } from "../../config/index.ts";
import { plannedEvent } from "../../engine/index.ts";
import type { Mission } from "../../mission/index.ts";
import type { MissionEvent } from "../../mission/index.ts";
import { checkPlan, formatPlanError } from "../../plan/index.ts";
import { PLAN_ARTIFACT, ARTIFACT_FILES, planArtifactSchema, readArtifactJson } from "../artifacts.ts";
import { planCheckOptions } from "../../engine/index.ts";

/** The event for this run's plan artifact; null when the mission is not waiting for a plan. */
export async function planEvent(input: { folder: string; mission: Mission; config: Config; at: string; runUrl: string | null }): Promise<MissionEvent | null> {
  const { mission, at } = input;
  if (mission.status !== "planning") return null;
  const read = await readArtifactJson(input.folder, PLAN_ARTIFACT, ARTIFACT_FILES.plan, planArtifactSchema);
  const failed = (reason: string): MissionEvent => ({ type: "planning_failed", at, reason });
  if (read.kind === "missing") return failed(`the plan job ended without a plan${input.runUrl ? ` (see ${input.runUrl})` : ""}`);
  if (read.kind === "invalid") return failed(read.reason);
  if (read.value.mission !== mission.id) return failed(`the plan artifact is for ${JSON.stringify(read.value.mission)}, not ${mission.id}`);
  const outcome = read.value.outcome;
  if (outcome.kind === "failed") return failed(outcome.reason);
  const check = checkPlan(outcome.text, planCheckOptions(input.config, mission.settings.strict));
  if (!check.ok || !check.plan || !check.proof) return failed(`the plan is invalid:\n${check.errors.map(formatPlanError).join("\n")}`);
  return plannedEvent(check, at);
}
