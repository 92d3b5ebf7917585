/**
 * `plan` (read-only job): the request's own plan, or the planner agent's, written to the
 * `naruto-plan` artifact. The action's step loads the mission and the config text with the
 * job's token and exits; the agent step, which holds no token, runs the planner. The publish
 * job checks the plan again and records it: this job cannot write the state, and what the
 * planner wrote is untrusted.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { codeSpan } from "../../report/index.ts";
import { ARTIFACT_FILES, type PlanArtifact } from "../artifacts.ts";
import type { AgentStepDeps, ModeDeps } from "../deps.ts";
import { runPlanner } from "../../engine/index.ts";
import { preparedCommon, type PreparedOf } from "../prepared.ts";
import { artifactFolder, ConfigInvalidError, configFromText, engineContext, handOver, readMission, missionConfigText, missionInput } from "./shared.ts";

/** The action's step: the mission and its config text, for the agent step. */
export async function preparePlan(deps: ModeDeps, input: { mission: string }): Promise<void> {
  const id = missionInput(input.mission);
  deps.log.setOutput("mission", id);
  const artifact = await artifactFolder(deps);
  const { mission } = await readMission(deps, id);
  if (mission.status !== "planning") {
    const reason = `mission ${id} is ${mission.status}: there is nothing to plan`;
    await handOver(deps, { kind: "skip", phase: "plan", mission: id, reason });
    deps.log.info(reason);
    await deps.log.summary(`naruto ${codeSpan(id)}: ${mission.status}, nothing to plan.`);
    return;
  }
  const configText = await missionConfigText(deps, mission);
  await handOver(deps, { kind: "plan", ...preparedCommon(mission, { configPath: deps.configPath, configText, artifact }) });
}

/** The agent step: the plan (the request's own, or the planner agent's) into the artifact. */
export async function planStep(deps: AgentStepDeps, job: PreparedOf<"plan">): Promise<void> {
  const { mission } = job;
  let outcome: PlanArtifact["outcome"];
  try {
    const config = configFromText({ text: job.configText, path: job.configPath, mission });
    if (mission.plan_text !== null) {
      outcome = { kind: "plan", text: mission.plan_text };
    } else {
      const ctx = await engineContext(deps, config);
      const result = await deps.log.group("planner agent", () => runPlanner(ctx, mission));
      outcome = result.ok ? { kind: "plan", text: result.text } : { kind: "failed", reason: result.reason };
    }
  } catch (error) {
    if (!(error instanceof ConfigInvalidError)) throw error;
    outcome = { kind: "failed", reason: error.message };
  }
  const artifact: PlanArtifact = { schema: "naruto.plan-artifact/v1", mission: mission.id, outcome };
  await writeFile(join(job.artifact, ARTIFACT_FILES.plan), `${JSON.stringify(artifact, null, 2)}\n`);
  const line = outcome.kind === "plan" ? "a plan is ready for the publish job to check" : `planning failed: ${outcome.reason}`;
  deps.log.info(line);
  await deps.log.summary(`### naruto ${codeSpan(mission.id)} · plan\n\n${line.split("\n")[0]}\n`);
}
