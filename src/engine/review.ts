/**
 * The arbiter, for both drivers: gathers the facts the policy rules need (what changed on the
 * queue, whether it was verified, what the independent proof checker says), runs the optional
 * review agent, and returns the `reviewed` event.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runAgent } from "../agent/run-agent.ts";
import { policyFindings, reviewMission, type ProofCheck, type ReviewAgent } from "../arbiter/index.ts";
import type { Config } from "../config/index.ts";
import { gitText, type Git } from "../git/run-git.ts";
import type { Mission } from "../mission/document.ts";
import type { MissionEvent } from "../mission/events.ts";
import { checkPlan, verifyProof } from "../plan/index.ts";
import { missionDir } from "./records.ts";
import { withScratchTree } from "./scratch-tree.ts";

export type Reviewed = Extract<MissionEvent, { type: "reviewed" }>;

export interface ReviewContext {
  readonly git: Git;
  readonly repoDir: string;
  readonly commonDir: string;
  readonly config: Config;
  readonly verifyConfigured: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => Date;
}

/**
 * @param options.agent the review agent to ask instead of the config's (the GitHub driver replays
 *   the answers its review job recorded); null: no review agent, the policy rules alone.
 */
export async function reviewLocally(ctx: ReviewContext, mission: Mission, options: { readonly agent?: ReviewAgent | null } = {}): Promise<Reviewed> {
  const range = [mission.base.commit, mission.queue.head];
  const changed = await gitText(ctx.git, { args: ["--no-optional-locks", "diff", "--name-only", "--no-renames", ...range], cwd: ctx.repoDir });
  const diff = await gitText(ctx.git, { args: ["--no-optional-locks", "diff", "--no-color", ...range], cwd: ctx.repoDir });
  const policy = policyFindings({
    mission,
    changedPaths: changed === "" ? [] : changed.split("\n"),
    protectedPaths: ctx.config.allow_protected ? [] : ctx.config.protected,
    queue: {
      verifyConfigured: ctx.verifyConfigured,
      // The queue only ever advances to a verified candidate when verification is configured.
      headVerified: ctx.verifyConfigured && (mission.queue.head === mission.base.commit || mission.queue.verify_runs > 0),
    },
    proofCheck: checkMissionProof(mission),
  });
  const reviewer = options.agent === undefined ? reviewAgentFor(ctx, mission) : options.agent;
  const verdict = await reviewMission({ mission, diff, policy, ...(reviewer ? { runReviewAgent: reviewer } : {}) });
  return { type: "reviewed", at: ctx.now().toISOString(), ...verdict };
}

/**
 * Re-checks the stored proof against the stored plan with the independent checker: a proof
 * that was tampered with, or that belongs to another plan, is a blocking finding.
 */
export function checkMissionProof(mission: Mission): ProofCheck {
  const plan = {
    version: 1,
    title: mission.plan_title ?? "",
    items: mission.items.map((i) => ({
      id: i.id,
      title: i.title,
      prompt: i.prompt,
      writes: i.readonly ? [] : i.writes,
      reads: i.reads,
      after: i.after,
      agent: i.agent,
      ...(i.verify ? { verify: i.verify } : {}),
      estimate: i.estimate,
      ...(i.readonly ? { readonly: true } : {}),
    })),
  };
  const checked = checkPlan(plan, { strict: false });
  if (!checked.plan) return { ok: false, reasons: checked.errors.map((e) => `the stored plan is invalid: ${e.field}: ${e.message}`) };
  return verifyProof(checked.plan, mission.proof);
}

/** The config's review agent (`arbiter.agent`), run in a scratch tree at the queue head; null: none. */
export function reviewAgentFor(ctx: ReviewContext, mission: Mission): ReviewAgent | null {
  const name = ctx.config.arbiter.agent;
  if (name === null) return null;
  const profile = ctx.config.agents[name];
  if (!profile) return null;
  let n = 0;
  return async (prompt) => {
    n += 1;
    const dir = join(missionDir(ctx.commonDir, mission.id), "review", String(n));
    await mkdir(dir, { recursive: true });
    const promptFile = join(dir, "prompt.md");
    await writeFile(promptFile, prompt);
    const resultFile = join(dir, "result.json");
    // The review agent reads the integrated code in a scratch work tree at the queue head: it
    // never runs in the user's checkout, and whatever it changes there is thrown away.
    const tree = { git: ctx.git, repoDir: ctx.repoDir, path: join(dir, "tree"), commit: mission.queue.head };
    const run = await withScratchTree(tree, (cwd) =>
      runAgent({
        command: profile.command,
        cwd,
        env: ctx.env,
        allowEnv: profile.env,
        mission: mission.id,
        item: "review",
        attempt: n,
        writes: [],
        promptFile,
        resultFile,
        timeoutMs: profile.timeout,
      }),
    );
    const result = await readFile(resultFile, "utf8").catch(() => "");
    return `${run.output}\n${result}`;
  };
}
