/**
 * What a run and a resume of a local mission both build to drive it: the sandbox (and what the
 * terminal says of one without it), the tamper record, and the driver's context — its redacting
 * store, its planner and its reports.
 */
import type { Config, SandboxMode } from "../config/index.ts";
import { createLocalMissionStore } from "../store/index.ts";
import type { Mission } from "../mission/index.ts";
import type { MissionEvent } from "../mission/index.ts";
import { checkPlan, formatPlanError, type CheckResult } from "../plan/index.ts";
import type { EngineContext } from "../engine/index.ts";
import { plannedEvent } from "../engine/index.ts";
import { planCheckOptions, runPlanner } from "../engine/index.ts";
import type { DriverContext } from "./driver.ts";
import type { LocalDeps } from "./local-mission.ts";
import { PLANNER_OUTPUT } from "./progress.ts";
import { writeReports } from "./reports.ts";
import { chooseSandbox } from "../sandbox/index.ts";
import type { Sandbox } from "../sandbox/index.ts";
import { createTamperWatch, type TamperWatch } from "./tamper-watch.ts";
import { createRedactor, passedNames, redactingStore, secretValues } from "../redact/index.ts";

/** What the terminal says of a run without the sandbox. */
export function unsandboxedWarning(sandbox: Sandbox): string {
  if (!sandbox.runsAsRoot) return `agents run without a sandbox: ${sandbox.description}`;
  return `agents run as root without a sandbox: ${sandbox.description}; the verdict cannot be approve (install bubblewrap and use sandbox: auto, where agents run as an unprivileged user)`;
}

/** The sandbox of a run (`deps.chooseSandbox` in tests, else bubblewrap when it works). */
export function pickSandbox(deps: LocalDeps, mode: SandboxMode): Promise<Sandbox> {
  return deps.chooseSandbox ? deps.chooseSandbox(mode) : chooseSandbox({ mode, env: deps.env });
}

/** The tamper record of a mission (tamper-watch.ts), taken now. */
export function watchFor(
  deps: LocalDeps,
  { repoDir, commonDir }: { repoDir: string; commonDir: string },
  mission: string,
  sandbox: Sandbox,
): Promise<TamperWatch> {
  return createTamperWatch({ git: deps.git, repoDir, commonDir, mission, home: deps.env.HOME ?? null, sandboxed: sandbox.kind === "bwrap", now: deps.now });
}

export function driverContext(
  deps: LocalDeps,
  { repoDir, commonDir }: { repoDir: string; commonDir: string },
  run: { config: Config; verify: string | null; planText: string | null; sandbox: Sandbox; workRoot: string; tamper: TamperWatch },
): DriverContext {
  // Every git of the mission goes through the tamper watch, which notes naruto's own ref writes.
  const git = run.tamper.git;
  const { config, verify, planText } = run;
  const engine = { git, repoDir, commonDir, config, env: deps.env, now: deps.now, sandbox: run.sandbox, workRoot: run.workRoot, nodePath: deps.nodePath };
  // What the mission writes (its state in refs, report.md, result.json) is redacted: the secrets
  // are what the config passes to agents and every credential-named variable (docs/architecture.md).
  const redactor = createRedactor({ secrets: secretValues({ env: deps.env, passed: passedNames(config) }) });
  return {
    ...engine,
    tamper: run.tamper,
    store: redactingStore(createLocalMissionStore({ git, repoDir }), redactor),
    verify,
    progress: deps.progress,
    ...(deps.shutdown ? { shutdown: deps.shutdown } : {}),
    ...(deps.onCancelled ? { onCancelled: deps.onCancelled } : {}),
    ...(deps.tickMs ? { tickMs: deps.tickMs } : {}),
    plan: (m, signal) => makePlan({ ctx: { ...engine, signal }, planText, mission: m, onOutput: (chunk) => deps.progress.output(PLANNER_OUTPUT, chunk) }),
    report: async (m) => {
      await writeReports(commonDir, m, redactor);
    },
  };
}

/** The `planned` event for an explicit plan, or the planner agent's plan; null when the planner was stopped. */
async function makePlan(input: {
  ctx: EngineContext;
  planText: string | null;
  mission: Mission;
  onOutput: (chunk: Buffer) => void;
}): Promise<MissionEvent | null> {
  const { ctx, mission } = input;
  const { config } = ctx;
  const at = () => ctx.now().toISOString();
  let check: CheckResult;
  if (input.planText !== null) {
    check = checkPlan(input.planText, planCheckOptions(config, mission.settings.strict));
    if (!check.ok) return { type: "planning_failed", at: at(), reason: check.errors.map(formatPlanError).join("\n") };
  } else {
    const result = await runPlanner(ctx, mission, { onOutput: input.onOutput });
    if (!result.ok && "stopped" in result) return null;
    if (!result.ok) return { type: "planning_failed", at: at(), reason: result.reason, ...(result.outputTail ? { output_tail: [...result.outputTail] } : {}) };
    check = result.check;
  }
  return plannedEvent(check, at());
}
