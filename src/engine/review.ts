/**
 * The arbiter, for both drivers: gathers the facts the policy rules need (what changed on the
 * queue, whether it was verified, what the independent proof checker says), runs the optional
 * review agent, and returns the `reviewed` event.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { runAgent } from "../agent/index.ts";
import { parsePatch, policyFindings, reviewMission, type ItemPatch, type ProofCheck, type ReviewAgent } from "../arbiter/index.ts";
import type { Config } from "../config/index.ts";
import { gitText, type Git } from "../git/index.ts";
import type { Mission } from "../mission/index.ts";
import type { MissionEvent } from "../mission/index.ts";
import { checkPlan, verifyProof, type CheckOptions } from "../plan/index.ts";
import { planCheckOptions } from "./planner.ts";
import { makeViewGitDir, viewCall, workRepo, writeOwnFile } from "../sandbox/index.ts";
import { createAgentLog } from "./agent-log.ts";
import { containmentOf, giveLogin, sandboxLimits } from "./contained.ts";
import { withWorkDir, type EngineContext } from "./context.ts";
import { missionDir } from "./records.ts";
import { withBaseStartupConfig } from "./startup-config.ts";

export type Reviewed = Extract<MissionEvent, { type: "reviewed" }>;

export interface ReviewContext {
  readonly git: Git;
  readonly repoDir: string;
  readonly commonDir: string;
  readonly config: Config;
  readonly verifyConfigured: boolean;
  readonly now: () => Date;
}

/**
 * @param options.agent the review agent (see {@link reviewAgentFor}; the GitHub driver replays
 *   the answers its review job recorded); null: no review agent, the policy rules alone.
 */
export async function reviewLocally(ctx: ReviewContext, mission: Mission, options: { readonly agent: ReviewAgent | null }): Promise<Reviewed> {
  const { changed, diff, patches } = await integratedDiff(ctx, mission);
  const policy = policyFindings({
    itemPatches: itemPatches(mission, patches),
    mission,
    changedPaths: changed === "" ? [] : changed.split("\n"),
    protectedPaths: ctx.config.allow_protected ? [] : ctx.config.protected,
    queue: {
      verifyConfigured: ctx.verifyConfigured,
      // The queue only ever advances to a verified candidate when verification is configured.
      headVerified: ctx.verifyConfigured && (mission.queue.head === mission.base.commit || mission.queue.verify_runs > 0),
    },
    // The same checks as the plan got when the mission ran (limits, protected paths, strictness).
    proofCheck: checkMissionProof(mission, planCheckOptions(ctx.config, mission.settings.strict)),
  });
  const reviewer = options.agent;
  const verdict = await reviewMission({ mission, diff, policy, ...(reviewer ? { runReviewAgent: reviewer } : {}) });
  return { type: "reviewed", at: ctx.now().toISOString(), ...verdict };
}

/**
 * What the queue changed since the base, read so that the repository cannot steer it (docs/architecture.md
 * "What leaves"): in naruto's own view (no `.gitattributes` of the repository or of an
 * agent: a `-diff` cannot turn a change into "Binary files differ"), as text, without textconv
 * or an external diff.
 */
export async function integratedDiff(
  ctx: Pick<ReviewContext, "git" | "repoDir" | "commonDir">,
  mission: Pick<Mission, "base" | "queue">,
): Promise<{ changed: string; diff: string; patches: string }> {
  const range = [mission.base.commit, mission.queue.head];
  const repo = await workRepo(ctx.git, ctx.repoDir);
  await mkdir(join(ctx.commonDir, "naruto", "tmp"), { recursive: true });
  const gitDir = await mkdtemp(join(ctx.commonDir, "naruto", "tmp", "review-"));
  try {
    await makeViewGitDir(gitDir, repo.objects.format);
    const view = { gitDir, workTree: gitDir, index: join(gitDir, "index"), objects: repo.objects };
    // At once: they only read, and the review is the last step before the mission ends. The
    // patches are commit by commit (what each item did to the tests), renames found so that a
    // moved test file is not a deleted one.
    const [changed, diff, patches] = await Promise.all([
      gitText(ctx.git, viewCall(view, ["diff", "--name-only", "--no-renames", ...range])),
      gitText(ctx.git, viewCall(view, ["diff", "--no-color", "--text", "--no-textconv", "--no-ext-diff", ...range])),
      gitText(
        ctx.git,
        viewCall(view, [
          "log",
          "--format=%x00%H",
          "-p",
          "-M",
          "-U0",
          "--no-color",
          "--text",
          "--no-textconv",
          "--no-ext-diff",
          `${range[0]}..${range[1]}`,
          "--",
        ]),
      ),
    ]);
    return { changed, diff, patches };
  } finally {
    await rm(gitDir, { recursive: true, force: true });
  }
}

/** The patch of each integrated item's queue commit, from `git log -p` split at its `%x00%H` lines. */
function itemPatches(mission: Mission, log: string): ItemPatch[] {
  const byCommit = new Map(mission.items.flatMap((i) => (i.status === "integrated" && i.commit ? [[i.commit, i.id] as const] : [])));
  const out: ItemPatch[] = [];
  for (const chunk of log.split("\0").slice(1)) {
    const newline = chunk.indexOf("\n");
    const commit = (newline === -1 ? chunk : chunk.slice(0, newline)).trim();
    const item = byCommit.get(commit);
    if (item !== undefined) out.push({ item, files: parsePatch(newline === -1 ? "" : chunk.slice(newline + 1)) });
  }
  // In plan order, as the other findings are.
  const order = new Map(mission.items.map((i, k) => [i.id, k]));
  return out.sort((a, b) => (order.get(a.item) ?? 0) - (order.get(b.item) ?? 0));
}

/**
 * Re-checks the stored proof against the stored plan with the independent checker: a proof
 * that was tampered with, or that belongs to another plan, is a blocking finding.
 */
export function checkMissionProof(mission: Mission, options: CheckOptions): ProofCheck {
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
      ...(i.tests ? { tests: i.tests } : {}),
    })),
  };
  const checked = checkPlan(plan, options);
  if (!checked.plan) return { ok: false, reasons: checked.errors.map((e) => `the stored plan is invalid: ${e.field}: ${e.message}`) };
  return verifyProof(checked.plan, mission.proof);
}

/**
 * The config's review agent (`arbiter.agent`), run in the sandbox in a fresh work directory at
 * the queue head (whatever it changes there is thrown away); null: none. Its prompts and output
 * are kept under `<git-common-dir>/naruto/missions/<id>/review/<n>/`.
 */
export function reviewAgentFor(ctx: EngineContext, mission: Mission): ReviewAgent | null {
  const name = ctx.config.arbiter.agent;
  if (name === null) return null;
  const profile = ctx.config.agents[name];
  if (!profile) return null;
  let n = 0;
  let start: Promise<string> | null = null;
  return async (prompt) => {
    n += 1;
    // The tree under review is untrusted (agents wrote it; on a fork, strangers did): the agent
    // starts with the base's start-up config, never the tree's own hooks, settings or `.env`.
    start ??= mkdir(join(ctx.commonDir, "naruto", "tmp"), { recursive: true }).then(() =>
      withBaseStartupConfig({
        git: ctx.git,
        repoDir: ctx.repoDir,
        tmpDir: join(ctx.commonDir, "naruto", "tmp"),
        head: mission.queue.head,
        base: mission.base.commit,
      }),
    );
    const commit = await start;
    const attempt = n;
    const records = join(missionDir(ctx.commonDir, mission.id), "review", String(attempt));
    await writeOwnFile(join(records, "prompt.md"), prompt);
    const containment = await containmentOf(profile, ctx);
    return withWorkDir(ctx, { mission: mission.id, label: `review.${attempt}`, purpose: "review", attempt, commit }, async (workDir) => {
      const refused = await giveLogin(profile, workDir.home, ctx);
      if (refused !== null) return `naruto: the review agent's login could not be given to it: ${refused}`;
      const log = createAgentLog(join(records, "output.log"));
      const run = await runAgent({
        command: profile.command,
        sandbox: ctx.sandbox,
        workDir,
        prompt,
        env: ctx.env,
        allowEnv: profile.env,
        network: containment.network,
        readOnly: containment.readOnly,
        links: containment.links,
        limits: sandboxLimits(ctx.config.limits),
        mission: mission.id,
        item: "review",
        attempt,
        writes: [],
        timeoutMs: profile.timeout,
        onOutput: (chunk) => log.write(chunk),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      await log.close();
      if (run.resultText !== null) await writeOwnFile(join(records, "result.json"), run.resultText);
      return `${run.output}\n${run.resultText ?? ""}`;
    });
  };
}
