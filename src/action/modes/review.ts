/**
 * `review` (read-only job): the review agent (config `arbiter.agent`) reads the integrated diff
 * part by part, through the same arbiter as on one machine; its answers go into the
 * `naruto-review` artifact. The action's step loads the mission and the config text with the
 * job's token and exits; the agent step, which holds no token, runs the review agent. The
 * publish job runs the policy rules and decides the verdict.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ReviewAgent } from "../../arbiter/index.ts";
import { reviewAgentFor, reviewLocally } from "../../engine/index.ts";
import { codeSpan } from "../../report/index.ts";
import { ARTIFACT_FILES, type ReviewArtifact } from "../artifacts.ts";
import type { AgentStepDeps, ModeDeps } from "../deps.ts";
import { preparedCommon, type PreparedOf } from "../prepared.ts";
import { hasCommit } from "../remote.ts";
import { artifactFolder, configFromText, engineContext, handOver, readMission, missionConfigText, missionInput, ModeInputError } from "./shared.ts";

/** The action's step: the mission and its config text, for the agent step. */
export async function prepareReview(deps: ModeDeps, input: { mission: string }): Promise<void> {
  const id = missionInput(input.mission);
  deps.log.setOutput("mission", id);
  const artifact = await artifactFolder(deps);
  const { mission } = await readMission(deps, id);
  if (mission.status !== "reviewing") {
    const reason = `mission ${id} is ${mission.status}: there is nothing to review`;
    await handOver(deps, { kind: "skip", phase: "review", mission: id, reason });
    deps.log.info(reason);
    await deps.log.summary(`naruto ${codeSpan(id)}: ${mission.status}, nothing to review.`);
    return;
  }
  if (!(await hasCommit(deps.git, deps.workspace, mission.queue.head))) {
    throw new ModeInputError(`the checkout does not hold the queue head ${mission.queue.head.slice(0, 12)}: check out naruto/${id} with fetch-depth: 0`);
  }
  const configText = await missionConfigText(deps, mission);
  await handOver(deps, { kind: "review", ...preparedCommon(mission, { configPath: deps.configPath, configText, artifact }) });
}

/** The agent step: the review agent's answers into the artifact. */
export async function reviewStep(deps: AgentStepDeps, job: PreparedOf<"review">): Promise<void> {
  const { mission } = job;
  const config = configFromText({ text: job.configText, path: job.configPath, mission });
  const ctx = { ...(await engineContext(deps, config)), verifyConfigured: config.queue.verify !== null };
  const outputs: string[] = [];
  const agent = reviewAgentFor(ctx, mission);
  if (agent !== null) {
    // A part the agent failed on is recorded as an empty answer: unreadable, so it cannot approve.
    const recorder: ReviewAgent = async (prompt) => {
      const output = await agent(prompt).catch((error: unknown) => {
        outputs.push("");
        throw error;
      });
      outputs.push(output);
      return output;
    };
    await deps.log.group("review agent", () => reviewLocally(ctx, mission, { agent: recorder }));
  }
  const artifact: ReviewArtifact = { schema: "naruto.review-artifact/v1", mission: mission.id, queue_head: mission.queue.head, outputs };
  await writeFile(join(job.artifact, ARTIFACT_FILES.review), `${JSON.stringify(artifact, null, 2)}\n`);
  const line = agent === null ? "no review agent is configured: the policy rules decide" : `the review agent answered ${outputs.length} part(s)`;
  deps.log.info(line);
  await deps.log.summary(`### naruto ${codeSpan(mission.id)} · review\n\n${line}; the publish job decides the verdict.\n`);
}
