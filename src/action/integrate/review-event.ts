/**
 * The review job's artifact becomes the `reviewed` event. The policy rules run here, in the job
 * that writes the state; the review agent's answers (untrusted: an agent wrote them) are replayed
 * into the same arbiter as on one machine, which parses each one and never lets an unreadable
 * answer approve.
 */
import { reviewMission, type ReviewAgent } from "../../arbiter/index.ts";
import type { Config } from "../../config/index.ts";
import type { Git } from "../../git/index.ts";
import { gitCommonDir } from "../../engine/index.ts";
import { integratedDiff, reviewLocally } from "../../engine/index.ts";
import type { Mission } from "../../mission/index.ts";
import type { MissionEvent } from "../../mission/index.ts";
import { ARTIFACT_FILES, REVIEW_ARTIFACT, readArtifactJson, reviewArtifactSchema } from "../artifacts.ts";

export interface ReviewEventInput {
  readonly folder: string;
  readonly mission: Mission;
  readonly config: Config;
  readonly git: Git;
  readonly repoDir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly now: () => Date;
}

/** The `reviewed` event; null when the mission is not in review. */
export async function reviewEvent(input: ReviewEventInput): Promise<MissionEvent | null> {
  const { mission, config } = input;
  if (mission.status !== "reviewing") return null;
  let agent: ReviewAgent | null = null;
  if (config.arbiter.agent !== null) {
    const read = await readArtifactJson(input.folder, REVIEW_ARTIFACT, ARTIFACT_FILES.review, reviewArtifactSchema);
    let outputs: readonly string[] = [];
    let missing = "the review job left no answer";
    if (read.kind === "invalid") missing = read.reason;
    else if (read.kind === "ok" && read.value.mission !== mission.id) missing = `the review artifact is for ${JSON.stringify(read.value.mission)}`;
    else if (read.kind === "ok" && read.value.queue_head !== mission.queue.head)
      missing = `the review job read ${read.value.queue_head.slice(0, 12)}, not the queue head`;
    else if (read.kind === "ok") outputs = read.value.outputs;
    agent = replay(outputs, missing);
  }
  if (mission.kind === "review") return reviewOnly(input, agent);
  const commonDir = await gitCommonDir(input.git, input.repoDir);
  const ctx = { git: input.git, repoDir: input.repoDir, commonDir, config, verifyConfigured: config.queue.verify !== null, env: input.env, now: input.now };
  return reviewLocally(ctx, mission, { agent });
}

/**
 * A review-only mission (`/naruto review`): the pull request's own commits, from the merge base
 * to its head. The policy rules are about naruto's own work (items, proof, queue, the protected
 * paths agents may not write), and there is none here, so the review agent's answers decide.
 * The diff is the one the review job read, so its answers replay part by part.
 */
async function reviewOnly(input: ReviewEventInput, agent: ReviewAgent | null): Promise<MissionEvent> {
  const { mission } = input;
  // The same diff the review job's agent read, which the repository cannot steer (no in-tree
  // attributes, no textconv, no external diff): its answers replay part by part.
  const { diff } = await integratedDiff({ git: input.git, repoDir: input.repoDir, commonDir: await gitCommonDir(input.git, input.repoDir) }, mission);
  // With no review agent nothing would have looked at the change: that must not read as approval.
  const reviewer = agent ?? replay([], "no review agent is configured: set arbiter.agent in the config at the pull request's base");
  const verdict = await reviewMission({ mission, diff, policy: [], runReviewAgent: reviewer });
  return { type: "reviewed", at: input.now().toISOString(), ...verdict };
}

/** Answers the arbiter's prompts with what the review job's agent answered, in order. */
export function replay(outputs: readonly string[], missing: string): ReviewAgent {
  let next = 0;
  return async () => {
    const output = outputs[next++];
    if (output === undefined) throw new Error(missing);
    return output;
  };
}
