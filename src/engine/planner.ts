/**
 * The planner agent (`planWithAgent`: one retry with the errors, then a clear failure), run in a
 * scratch tree at the mission's base so it reads exactly the code the mission starts from. The
 * local driver and the Action's plan job both plan through here.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { planWithAgent, type PlannerResult } from "../agent/planner.ts";
import { runAgent } from "../agent/run-agent.ts";
import type { Config } from "../config/index.ts";
import type { Git } from "../git/run-git.ts";
import { withScratchTree } from "./scratch-tree.ts";
import type { Mission } from "../mission/document.ts";
import type { CheckOptions } from "../plan/index.ts";

/** The checks every plan gets, whoever wrote it (the comment, the issue, the planner agent). */
export function planCheckOptions(config: Config, strict: boolean): CheckOptions {
  return {
    limits: { maxItems: config.limits.max_items, maxPromptChars: 65_536, protected: config.protected, allowProtected: config.allow_protected },
    strict,
  };
}

export async function runPlanner(input: {
  git: Git;
  repoDir: string;
  /** Outside the checkout: prompts, the plan file, scratch trees. */
  dir: string;
  config: Config;
  mission: Mission;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<PlannerResult> {
  const { config, mission } = input;
  const profile = config.agents[config.planner.agent];
  if (!profile) return { ok: false, reason: `the planner's agent profile "${config.planner.agent}" is not defined`, attempts: 0 };
  await mkdir(input.dir, { recursive: true });
  return planWithAgent({
    task: mission.task,
    planFile: join(input.dir, "plan.yml"),
    check: planCheckOptions(config, mission.settings.strict),
    run: async ({ prompt, attempt }) => {
      const promptFile = join(input.dir, `prompt-${attempt}.md`);
      await writeFile(promptFile, prompt);
      const tree = { git: input.git, repoDir: input.repoDir, path: join(input.dir, `tree-${attempt}`), commit: mission.base.commit };
      const run = await withScratchTree(tree, (cwd) =>
        runAgent({
          command: profile.command, cwd, env: input.env, allowEnv: profile.env, mission: mission.id, item: "planner",
          attempt, writes: [], promptFile, resultFile: join(input.dir, `result-${attempt}.json`), timeoutMs: profile.timeout,
        }),
      );
      return { ok: run.outcome === "exited", detail: `${run.outcome} (exit ${run.exitCode ?? run.signal ?? "?"}): ${run.output.slice(-2000)}` };
    },
  });
}
