/**
 * The two kinds of step that run the project's own code in the job's machine: `run:` scripts
 * (bash by default, as the runner runs them) and the repository's JavaScript action, started
 * as `node <action>/<runs.main>` with the `INPUT_*` variables the runner derives from `with:`
 * and the defaults of `action.yml` (themselves expressions, such as `${{ github.token }}`).
 */
import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import type { EvalContext } from "./expression-eval.ts";
import { evaluateStrings } from "./interpolate.ts";
import type { ExecResult, Machine } from "./machine.ts";

export interface LocalAction {
  readonly dir: string;
  readonly using: string;
  readonly main: string;
  readonly inputs: ReadonlyMap<string, { readonly default?: string; readonly required: boolean }>;
}

/** An action.yml the simulator cannot run (missing, not a node action). */
export class ActionDefinitionError extends Error {
  override readonly name = "ActionDefinitionError";
}

export async function readLocalAction(dir: string): Promise<LocalAction> {
  const file = join(dir, "action.yml");
  const text = await readFile(file, "utf8").catch(() => null);
  if (text === null) throw new ActionDefinitionError(`${file} does not exist: the naruto action (action.yml and its bundle) is not there yet`);
  const doc = parse(text) as { runs?: { using?: unknown; main?: unknown }; inputs?: Record<string, { default?: unknown; required?: unknown } | null> };
  const using = String(doc.runs?.using ?? "");
  const main = doc.runs?.main;
  if (!/^node\d+$/.test(using) || typeof main !== "string") throw new ActionDefinitionError(`${file}: runs.using must be nodeNN with runs.main (got ${JSON.stringify(doc.runs)})`);
  const inputs = new Map<string, { default?: string; required: boolean }>();
  for (const [name, spec] of Object.entries(doc.inputs ?? {})) {
    const fallback = spec?.default;
    inputs.set(name, { required: spec?.required === true, ...(fallback !== undefined && fallback !== null ? { default: String(fallback) } : {}) });
  }
  return { dir, using, main, inputs };
}

/** GitHub's input variable name: upper case, spaces to `_`, dashes kept (`INPUT_GITHUB-TOKEN`). */
export function inputVariable(name: string): string {
  return `INPUT_${name.replaceAll(" ", "_").toUpperCase()}`;
}

/** The `INPUT_*` variables: `with:` values, then the action's defaults evaluated in `context`. */
export function actionInputs(action: LocalAction, given: Readonly<Record<string, string>>, context: EvalContext): { env: Record<string, string>; problems: string[] } {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  const defaults = evaluateStrings(Object.fromEntries([...action.inputs].filter(([, s]) => s.default !== undefined).map(([n, s]) => [n, s.default])), context);
  for (const [name, spec] of action.inputs) {
    const value = given[name] ?? defaults[name];
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
    shell === "bash" ? "bash --noprofile --norc -eo pipefail {0}" : shell === "sh" ? "sh -e {0}" : shell === "python" ? "python3 {0}" : shell.includes("{0}") ? shell : `${shell} {0}`;
  const argv = template.split(/\s+/).map((word) => (word === "{0}" ? file : word));
  return input.machine.exec({ argv, cwd: input.cwd, env: input.env });
}
