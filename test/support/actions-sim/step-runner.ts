/**
 * One step of a job: its `if:`, its environment (runner variables, workflow/job/step `env:`,
 * what earlier steps added through `GITHUB_ENV`), fresh environment files, the step itself
 * (a standard action done by the simulator, the repository's action, or a script), then its
 * outputs, masks, annotations and the other workflow commands it printed, and `continue-on-error`.
 */
import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { isString } from "@actions/workflow-parser";
import { actionInputs, runAction, runScript, type LocalAction } from "./action-steps.ts";
import type { EvalContext } from "./expressions.ts";
import { mask, parseKeyValueFile, readWorkflowCommands } from "./file-commands.ts";
import { conditionOf, stringsOf, textOf, valueOfToken } from "./template-eval.ts";
import { runDownload, runUpload } from "./std-artifact-steps.ts";
import { runCheckout } from "./std-checkout.ts";
import { loadActionPins, RUNNER_NODE, type ActionPin } from "../action-pins.ts";
import type { Conclusion, StepContext, StepOutcome, StepResult } from "./types.ts";
import type { StepSpec } from "./workflow.ts";

export interface JobScope extends Omit<StepContext, "env"> {
  readonly runnerTemp: string;
  /** Variables the runner gives every step (GITHUB_*, RUNNER_*, HOME, PATH, CI). */
  readonly runnerEnv: Readonly<Record<string, string>>;
  /**
   * What the runner gives JavaScript action steps only (`ACTIONS_RUNTIME_TOKEN` and the service
   * URLs): `run:` steps never get it, as on GitHub.
   */
  readonly actionRuntimeEnv: Readonly<Record<string, string>>;
  /** Workflow and job `env:`, evaluated. */
  readonly jobEnv: Readonly<Record<string, string>>;
  /** What steps wrote to `GITHUB_ENV` so far. */
  readonly addedEnv: Record<string, string>;
  /** `github`, `inputs`, `matrix`, `needs`, `secrets`, `runner`, `vars`, `strategy`, `job`. */
  readonly contexts: Readonly<Record<string, unknown>>;
  readonly steps: Record<string, { outputs: Record<string, string>; outcome: Conclusion; conclusion: Conclusion }>;
  readonly masks: Set<string>;
  /** The repository's action for a `uses:` that is not a standard action; null for a standard one. */
  resolveAction(uses: string): Promise<LocalAction | null>;
  isCancelled(): boolean;
}

const STANDARD: Readonly<Record<string, (ctx: StepContext, inputs: Readonly<Record<string, string>>) => Promise<StepOutcome>>> = {
  "actions/checkout": runCheckout,
  "actions/upload-artifact": runUpload,
  "actions/download-artifact": runDownload,
};

let pins: readonly ActionPin[] | undefined;

/**
 * The release of a standard action a `uses:` names, as the simulator imitates it: a commit must
 * be one of the pinned releases (scripts/action-pins.json), whose `runs.using` the runner would
 * read; a tag `@vN` is the pinned release of that major. A string says why the simulator will not
 * pretend to run it. A release on an older Node than the runners' gets the runner's annotation.
 */
export function standardRelease(uses: string): ActionPin | string {
  pins ??= loadActionPins();
  const at = uses.lastIndexOf("@");
  const action = uses.slice(0, at < 0 ? uses.length : at);
  const ref = at < 0 ? "" : uses.slice(at + 1);
  const releases = pins.filter((p) => p.action === action);
  const found = /^[0-9a-f]{40}$/.test(ref) ? releases.find((p) => p.sha === ref) : releases.find((p) => p.version === ref || p.version.startsWith(`${ref}.`));
  return (
    found ??
    `the simulator imitates ${action} only at the releases of scripts/action-pins.json (${releases.map((p) => `${p.version} ${p.sha}`).join(", ")}), not @${ref}`
  );
}

function runtimeNote(release: ActionPin): string {
  if (release.using === RUNNER_NODE) return "";
  return `::warning::${release.action}@${release.version} declares runs.using ${release.using}; the runner runs it on ${RUNNER_NODE} instead, which it may not support\n`;
}

export function standardAction(uses: string): string | null {
  const name = uses.split("@")[0] ?? "";
  return name in STANDARD ? name : null;
}

async function freshFile(scope: JobScope, kind: string): Promise<string> {
  const file = join(scope.runnerTemp, "_runner_file_commands", `${kind}_${randomUUID()}`);
  await writeFile(file, "");
  await scope.chown(file);
  return file;
}

/** The step's name as GitHub shows it: `name:` evaluated (as written when it cannot be), else `Run <uses or first line>`. */
function stepName(spec: StepSpec, context: EvalContext): string {
  if (spec.name !== undefined) {
    try {
      return textOf(spec.name, context);
    } catch {
      return spec.name.toDisplayString();
    }
  }
  if (spec.uses !== undefined) return `Run ${spec.uses}`;
  const script = spec.run === undefined ? "" : isString(spec.run) ? spec.run.value : spec.run.toDisplayString();
  return `Run ${script.split("\n")[0] ?? ""}`;
}

/** Runs one step; `started` is told its name once its `if:` let it run, before its work begins (a skipped step never starts). */
export async function runStep(scope: JobScope, spec: StepSpec, failedSoFar: boolean, started?: (name: string) => Promise<void>): Promise<StepResult> {
  const kind = spec.uses ?? "run";
  const cancelled = scope.isCancelled();
  const envContext = { ...scope.jobEnv, ...scope.addedEnv };
  const base: EvalContext = {
    contexts: { ...scope.contexts, steps: scope.steps, env: envContext },
    status: { success: !failedSoFar, failure: failedSoFar, cancelled },
  };
  const name = stepName(spec, base);
  let envAdded: Record<string, string> = {};
  const record = (
    outcome: Conclusion,
    conclusion: Conclusion,
    outputs: Record<string, string>,
    log: string,
    summary = "",
    commands: Pick<StepResult, "annotations" | "commands"> = { annotations: [], commands: [] },
  ): StepResult => {
    if (spec.id !== null) scope.steps[spec.id] = { outputs, outcome, conclusion };
    return {
      name,
      id: spec.id,
      kind,
      outcome,
      conclusion,
      outputs,
      envAdded,
      log: mask(log, scope.masks),
      annotations: commands.annotations,
      commands: commands.commands,
      summary: mask(summary, scope.masks),
    };
  };
  let run: boolean;
  try {
    run = conditionOf(spec.if, base);
  } catch (error) {
    return record("failure", "failure", {}, `The step's if: could not be evaluated: ${String(error)}\n`);
  }
  if (!run) return record("skipped", "skipped", {}, "");
  await started?.(name);

  const files = {
    GITHUB_OUTPUT: await freshFile(scope, "set_output"),
    GITHUB_ENV: await freshFile(scope, "set_env"),
    GITHUB_STATE: await freshFile(scope, "save_state"),
    GITHUB_PATH: await freshFile(scope, "add_path"),
    GITHUB_STEP_SUMMARY: await freshFile(scope, "step_summary"),
  };
  let stepEnv: Record<string, string>;
  let inputs: Record<string, string>;
  try {
    stepEnv = stringsOf(spec.env, base);
    const withContext: EvalContext = { ...base, contexts: { ...base.contexts, env: { ...envContext, ...stepEnv } } };
    inputs = stringsOf(spec.with, withContext);
  } catch (error) {
    return record("failure", "failure", {}, `The step's env or with could not be evaluated: ${String(error)}\n`);
  }
  const env = { ...scope.runnerEnv, ...scope.jobEnv, ...scope.addedEnv, ...stepEnv, ...files, GITHUB_ACTION: spec.actionId };
  let cwd: string;
  let shell: string | undefined;
  try {
    cwd = resolve(scope.workspace, spec.workingDirectory === undefined ? "." : textOf(spec.workingDirectory, base));
    shell = spec.shell === undefined ? undefined : textOf(spec.shell, base);
  } catch (error) {
    return record("failure", "failure", {}, `The step's working-directory or shell could not be evaluated: ${String(error)}\n`);
  }

  let outcome: StepOutcome;
  const standard = spec.uses === undefined ? undefined : STANDARD[standardAction(spec.uses) ?? ""];
  const release = standard !== undefined && spec.uses !== undefined ? standardRelease(spec.uses) : null;
  if (typeof release === "string") {
    return record("failure", "failure", {}, `${release}\n`);
  } else if (standard !== undefined) {
    outcome = await standard({ ...scope, env }, inputs);
    if (release !== null) outcome = { ...outcome, log: `${runtimeNote(release)}${outcome.log}` };
  } else if (spec.uses !== undefined) {
    const action = await scope.resolveAction(spec.uses);
    if (action === null) return record("failure", "failure", {}, `the simulator cannot run ${spec.uses}\n`);
    const given = actionInputs(action, inputs, { ...base, contexts: { ...base.contexts, env: { ...envContext, ...stepEnv } } });
    const result = await runAction({ machine: scope.machine, action, cwd, env: { ...env, ...scope.actionRuntimeEnv, ...given.env } });
    outcome = {
      ok: result.code === 0,
      log: `${given.problems.map((p) => `::warning::${p}\n`).join("")}${result.output}${result.code === 0 ? "" : `\nProcess completed with exit code ${String(result.code ?? result.signal)}.\n`}`,
    };
  } else {
    let script: string;
    try {
      script = spec.run === undefined ? "" : textOf(spec.run, { ...base, contexts: { ...base.contexts, env: { ...envContext, ...stepEnv } } });
    } catch (error) {
      return record("failure", "failure", {}, `The step's run: could not be evaluated: ${String(error)}\n`);
    }
    const result = await runScript({ machine: scope.machine, script, shell, cwd, env, runnerTemp: scope.runnerTemp, chown: (p) => scope.chown(p) });
    outcome = {
      ok: result.code === 0,
      log: `${result.output}${result.code === 0 ? "" : `\nProcess completed with exit code ${String(result.code ?? result.signal)}.\n`}`,
    };
  }

  const commands = readWorkflowCommands(outcome.log);
  for (const m of commands.masks) scope.masks.add(m);
  let outputs: Record<string, string> = { ...(outcome.outputs ?? {}), ...commands.outputs };
  let log = outcome.log;
  let ok = outcome.ok && !commands.failed;
  try {
    outputs = { ...outputs, ...parseKeyValueFile(await readFile(files.GITHUB_OUTPUT, "utf8"), "GITHUB_OUTPUT") };
    envAdded = parseKeyValueFile(await readFile(files.GITHUB_ENV, "utf8"), "GITHUB_ENV");
    Object.assign(scope.addedEnv, envAdded);
  } catch (error) {
    log += `::error::${String(error)}\n`;
    ok = false;
  }
  const summary = await readFile(files.GITHUB_STEP_SUMMARY, "utf8").catch(() => "");
  const stepOutcome: Conclusion = ok ? "success" : "failure";
  const continueOnError = String(valueOfToken(spec.continueOnError, base) ?? false) === "true";
  return record(stepOutcome, ok || continueOnError ? "success" : "failure", outputs, log, summary, commands);
}
