/**
 * Runs an attempt's agent, or its item's verify command, contained (contained.ts): its output
 * kept in the attempt's log as it comes, its result file kept beside it.
 */
import { join } from "node:path";
import { runAgent, type AgentRun } from "../agent/index.ts";
import type { AgentProfile } from "../config/index.ts";
import type { Mission, MissionItem } from "../mission/index.ts";
import { type WorkDir, writeOwnFile } from "../sandbox/index.ts";
import { createAgentLog } from "./agent-log.ts";
import { containmentOf, sandboxLimits } from "./contained.ts";
import type { WorkerContext } from "./context.ts";

export interface ContainedRun {
  readonly profile: AgentProfile;
  readonly command: string;
  readonly workDir: WorkDir;
  readonly prompt: string;
  readonly mission: Mission;
  readonly item: MissionItem;
  readonly attempt: number;
  readonly signal: AbortSignal;
  /** The attempt's records folder: the log and the result file are kept there. */
  readonly records: string;
  readonly name: "agent" | "verify";
}

/**
 * Runs the agent, or the item's verify command, which a plan from a comment may set and which is
 * therefore treated like the agent itself (docs/architecture.md): same sandbox, same environment rules.
 */
export async function runContained(ctx: WorkerContext, r: ContainedRun): Promise<AgentRun> {
  const log = createAgentLog(join(r.records, r.name === "agent" ? "output.log" : "verify-output.log"));
  const containment = await containmentOf(r.profile, ctx);
  const resultName = r.name === "agent" ? "result.json" : "verify-result.json";
  let run: AgentRun | null = null;
  try {
    run = await runAgent({
      command: r.command,
      sandbox: ctx.sandbox,
      workDir: r.workDir,
      prompt: r.prompt,
      env: ctx.env,
      allowEnv: r.profile.env,
      network: containment.network,
      readOnly: containment.readOnly,
      links: containment.links,
      limits: sandboxLimits(ctx.config.limits),
      mission: r.mission.id,
      item: r.item.id,
      attempt: r.attempt,
      writes: r.item.writes,
      timeoutMs: r.profile.timeout,
      signal: r.signal,
      onOutput: (chunk: Buffer) => {
        log.write(chunk);
        ctx.onOutput?.(r.item.id, chunk);
      },
    });
    return run;
  } finally {
    await log.close();
    if (run?.resultText != null) await writeOwnFile(join(r.records, resultName), run.resultText);
  }
}
