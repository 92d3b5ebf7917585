/**
 * The two kinds of step that run the project's own code in the job's machine: `run:` scripts
 * (bash by default, as the runner runs them) and the repository's JavaScript action, started
 * as `node <action>/<runs.main>` with the `INPUT_*` variables the runner derives from `with:`
 * and the defaults of `action.yml` (themselves expressions, such as `${{ github.token }}`).
 */
import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { NoOperationTraceWriter } from "@actions/workflow-parser";
import { convertActionTemplate, parseAction } from "@actions/workflow-parser/actions/index";
import type { ScalarToken } from "@actions/workflow-parser/templates/tokens/index";
import type { EvalContext } from "./expressions.ts";
import type { ExecResult, Machine } from "./machine.ts";
import { textOf } from "./template-eval.ts";

export interface LocalAction {
  readonly dir: string;
  readonly using: string;
  readonly main: string;
  /** Each input's default as written (an expression such as `${{ github.token }}` is evaluated per step). */
  readonly inputs: ReadonlyMap<string, { readonly default?: ScalarToken; readonly required: boolean }>;
}

/** An action.yml the simulator cannot run (missing, refused by GitHub's action schema, not a node action). */
export class ActionDefinitionError extends Error {
  override readonly name = "ActionDefinitionError";
}

/** Reads `action.yml` with GitHub's action parser; any diagnostic refuses it, as GitHub would. */
export async function readLocalAction(dir: string): Promise<LocalAction> {
  const file = join(dir, "action.yml");
  const text = await readFile(file, "utf8").catch(() => null);
  if (text === null) throw new ActionDefinitionError(`${file} does not exist: the naruto action (action.yml and its bundle) is not there yet`);
  const parsed = parseAction({ name: file, content: text }, new NoOperationTraceWriter());
  const action = parsed.value === undefined ? undefined : convertActionTemplate(parsed.context, parsed.value);
  const diagnostics = parsed.context.errors.getErrors().map((e) => e.message);
  if (action?.runs === undefined || diagnostics.length > 0) throw new ActionDefinitionError(`${file} is not an action GitHub runs:\n${diagnostics.join("\n")}`);
  const runs = action.runs;
  if (runs.using === "composite" || runs.using === "docker")
    throw new ActionDefinitionError(`${file}: the simulator runs JavaScript actions only (runs.using is ${runs.using})`);
  const inputs = new Map<string, { default?: ScalarToken; required: boolean }>();
  for (const input of action.inputs ?? [])
    inputs.set(input.id, { required: input.required === true, ...(input.default !== undefined ? { default: input.default } : {}) });
  return { dir, using: runs.using, main: runs.main, inputs };
}

/** GitHub's input variable name: upper case, spaces to `_`, dashes kept (`INPUT_GITHUB-TOKEN`). */
export function inputVariable(name: string): string {
  return `INPUT_${name.replaceAll(" ", "_").toUpperCase()}`;
}

/** The `INPUT_*` variables: `with:` values, then the action's defaults evaluated in `context`. */
export function actionInputs(
  action: LocalAction,
  given: Readonly<Record<string, string>>,
  context: EvalContext,
): { env: Record<string, string>; problems: string[] } {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  for (const [name, spec] of action.inputs) {
    const value = given[name] ?? (spec.default === undefined ? undefined : textOf(spec.default, context));
    if (value !== undefined) env[inputVariable(name)] = value;
    else if (spec.required) problems.push(`Input required and not supplied: ${name}`);
  }
  for (const [name, value] of Object.entries(given)) {
    if (!action.inputs.has(name)) {
      problems.push(`Unexpected input '${name}', valid inputs are [${[...action.inputs.keys()].map((k) => `'${k}'`).join(", ")}]`);
      env[inputVariable(name)] = value;
    }
  }
  return { env, problems };
}

export function runAction(input: { machine: Machine; action: LocalAction; cwd: string; env: Record<string, string> }): Promise<ExecResult> {
  return input.machine.exec({ argv: [process.execPath, join(input.action.dir, input.action.main)], cwd: input.cwd, env: input.env });
}

/** Runs a `run:` script the way the runner does: a temp file under RUNNER_TEMP and the shell's template. */
export async function runScript(input: {
  machine: Machine;
  script: string;
  shell: string | undefined;
  cwd: string;
  env: Record<string, string>;
  runnerTemp: string;
  chown: (path: string) => Promise<void>;
}): Promise<ExecResult> {
  const file = join(input.runnerTemp, `${randomUUID()}.sh`);
  await writeFile(file, input.script);
  await input.chown(file);
  const shell = input.shell ?? "bash";
  const template =
    shell === "bash"
      ? "bash --noprofile --norc -eo pipefail {0}"
      : shell === "sh"
        ? "sh -e {0}"
        : shell === "python"
          ? "python3 {0}"
          : shell.includes("{0}")
            ? shell
            : `${shell} {0}`;
  const argv = template.split(/\s+/).map((word) => (word === "{0}" ? file : word));
  return input.machine.exec({ argv, cwd: input.cwd, env: input.env });
}
