/**
 * The planner agent (`planWithAgent`: one retry with the errors, then a clear failure), run in
 * the sandbox in a fresh work directory at the mission's base, so it reads exactly the code the
 * mission starts from and whatever it changes there is thrown away. It writes its plan into the
 * work directory's io folder, outside the files it reads. The local driver and the Action's plan
 * job both plan through here; prompts, output and plans are kept under
 * `<git-common-dir>/naruto/missions/<id>/planner/`.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readAgentFile } from "../agent/index.ts";
import { planWithAgent, type PlannerResult } from "../agent/index.ts";
import { runAgent } from "../agent/index.ts";
import type { Config } from "../config/index.ts";
import type { Mission } from "../mission/index.ts";
import type { CheckOptions } from "../plan/index.ts";
import { createAgentLog } from "./agent-log.ts";
import { containmentOf } from "./contained.ts";
import { withWorkDir, type EngineContext } from "./context.ts";
import { missionDir } from "./records.ts";

/** The checks every plan gets, whoever wrote it (the comment, the issue, the planner agent). */
export function planCheckOptions(config: Config, strict: boolean): CheckOptions {
  return {
    limits: { maxItems: config.limits.max_items, maxPromptChars: 65_536, protected: config.protected, allowProtected: config.allow_protected },
    strict,
  };
}

const PLAN_FILE_LIMIT = 1024 * 1024;

export async function runPlanner(ctx: EngineContext, mission: Mission): Promise<PlannerResult> {
  const { config } = ctx;
  const profile = config.agents[config.planner.agent];
  if (!profile) return { ok: false, reason: `the planner's agent profile "${config.planner.agent}" is not defined`, attempts: 0 };
  const records = join(missionDir(ctx.commonDir, mission.id), "planner");
  await mkdir(records, { recursive: true });
  const containment = await containmentOf(profile, ctx.env, ctx.nodePath);
  return planWithAgent({
    task: mission.task,
    check: planCheckOptions(config, mission.settings.strict),
    run: ({ prompt, attempt }) =>
      withWorkDir(ctx, { mission: mission.id, label: `planner.${attempt}`, purpose: "planner", attempt, commit: mission.base.commit }, async (workDir) => {
        const planFile = join(workDir.io, "plan.yml");
        const text = prompt(planFile);
        await writeFile(join(records, `prompt-${attempt}.md`), text);
        const log = createAgentLog(join(records, `output-${attempt}.log`));
        const run = await runAgent({
          command: profile.command, sandbox: ctx.sandbox, workDir, prompt: text, env: ctx.env, allowEnv: profile.env,
          network: containment.network, readOnly: containment.readOnly, mission: mission.id, item: "planner", attempt, writes: [], planFile,
          timeoutMs: profile.timeout, onOutput: (chunk) => log.write(chunk),
        });
        await log.close();
        const plan = await readPlan(planFile);
        if (plan !== null) await writeFile(join(records, `plan-${attempt}.yml`), plan);
        return { ok: run.outcome === "exited", detail: `${run.outcome} (exit ${run.exitCode ?? run.signal ?? "?"}): ${run.output.slice(-2000)}`, planFile, plan };
      }),
  });
}

/** The plan file the agent wrote: a plain file of at most 1 MiB (see readAgentFile); anything else is no plan. */
async function readPlan(path: string): Promise<string | null> {
  return (await readAgentFile(path, "plan file", PLAN_FILE_LIMIT)).text;
}
