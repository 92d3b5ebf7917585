/**
 * The planner agent (`planWithAgent`: one retry with the errors, then a clear failure), run in
 * the sandbox in a fresh work directory at the mission's base, so it reads exactly the code the
 * mission starts from and whatever it changes there is thrown away. It writes its plan into a
 * file naruto made fresh for it in the work directory's io folder, outside the files it reads. The local driver and the Action's plan
 * job both plan through here; prompts, output and plans are kept under
 * `<git-common-dir>/naruto/missions/<id>/planner/`.
 */
import { join } from "node:path";
import { planWithAgent, runAgent, outputTail, type PlannerResult } from "../agent/index.ts";
import { writeOwnFile } from "../sandbox/index.ts";
import type { Config } from "../config/index.ts";
import { outcomeReason, type Mission } from "../mission/index.ts";
import type { CheckOptions } from "../plan/index.ts";
import { createAgentLog } from "./agent-log.ts";
import { authFixOf, crashOutcome } from "./attempt-failure.ts";
import { containmentOf, giveLogin, sandboxLimits } from "./contained.ts";
import { withWorkDir, type EngineContext } from "./context.ts";
import { missionDir } from "./records.ts";

/** The checks every plan gets, whoever wrote it (the comment, the issue, the planner agent). */
export function planCheckOptions(config: Config, strict: boolean): CheckOptions {
  return {
    limits: { maxItems: config.limits.max_items, maxPromptChars: 65_536, protected: config.protected, allowProtected: config.allow_protected },
    strict,
  };
}

/** `onOutput`: each chunk of the planner agent's output (redacted), for a live view. */
export async function runPlanner(ctx: EngineContext, mission: Mission, options: { readonly onOutput?: (chunk: Buffer) => void } = {}): Promise<PlannerResult> {
  const { config } = ctx;
  const profile = config.agents[config.planner.agent];
  if (!profile) return { ok: false, reason: `the planner's agent profile "${config.planner.agent}" is not defined`, attempts: 0 };
  const records = join(missionDir(ctx.commonDir, mission.id), "planner");
  const containment = await containmentOf(profile, ctx);
  return planWithAgent({
    task: mission.task,
    check: planCheckOptions(config, mission.settings.strict),
    run: ({ prompt, attempt }) =>
      withWorkDir(ctx, { mission: mission.id, label: `planner.${attempt}`, purpose: "planner", attempt, commit: mission.base.commit }, async (workDir) => {
        const refused = await giveLogin(profile, workDir.home, ctx);
        if (refused !== null) return { ok: false, detail: `its login could not be given to it: ${refused}`, planFile: "", plan: null, permanent: true };
        const log = createAgentLog(join(records, `output-${attempt}.log`));
        // The plan file is made fresh for the run, beside its result file (src/sandbox/run-files.ts).
        let planFile = "";
        const run = await runAgent({
          command: profile.command,
          sandbox: ctx.sandbox,
          workDir,
          prompt: (file) => prompt((planFile = file)),
          env: ctx.env,
          allowEnv: profile.env,
          network: containment.network,
          readOnly: containment.readOnly,
          links: containment.links,
          limits: sandboxLimits(ctx.config.limits),
          mission: mission.id,
          item: "planner",
          attempt,
          writes: [],
          timeoutMs: profile.timeout,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
          onOutput: (chunk) => {
            log.write(chunk);
            options.onOutput?.(chunk);
          },
        });
        await log.close();
        await writeOwnFile(join(records, `prompt-${attempt}.md`), run.prompt);
        // A plain file of at most 1 MiB (see readAgentFile); anything else is no plan.
        const plan = run.planText;
        if (plan !== null) await writeOwnFile(join(records, `plan-${attempt}.yml`), plan);
        const said = run.files === null ? run.notes.join("; ") : run.output.slice(-2000);
        const detail = `${run.outcome} (exit ${run.exitCode ?? run.signal ?? "?"}): ${said}`;
        const tail = outputTail(run.output);
        if (run.outcome !== "crashed") return { ok: run.outcome === "exited", stopped: run.outcome === "cancelled", detail, planFile, plan, tail };
        const failure = crashOutcome({
          run,
          what: "the planner agent",
          why: `exit ${run.exitCode ?? run.signal ?? "?"}`,
          work: null,
          sandboxed: ctx.sandbox.kind === "bwrap",
          authFix: authFixOf(profile),
          tail: said,
        });
        return failure.kind === "permanent"
          ? { ok: false, detail: outcomeReason(failure), planFile, plan, permanent: true, tail }
          : { ok: false, detail, planFile, plan, tail };
      }),
  });
}
