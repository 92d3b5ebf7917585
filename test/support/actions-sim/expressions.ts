/**
 * Actions expressions (the language inside `${{ }}` and `if:`) evaluated by GitHub's own
 * `@actions/expressions`: its lexer, parser, evaluator and functions (`contains`, `startsWith`,
 * `endsWith`, `format`, `join`, `toJSON`, `fromJSON`), with its loose equality, case-insensitive
 * strings and property names, and its string forms of values.
 *
 * What the package leaves to the runner is here: the contexts as the simulator has them (plain
 * objects, converted to the package's data) and the status functions `success()`, `failure()`,
 * `always()` and `cancelled()`, which GitHub's runner answers from the job's state, as the
 * simulator does from {@link StatusFacts}. `hashFiles()` is not provided (the simulator does
 * not model it): an expression that calls it fails to parse here.
 */
import { data, Evaluator, Lexer, Parser } from "@actions/expressions";
import type { FunctionDefinition } from "@actions/expressions/funcs/info";
import { truthy } from "@actions/expressions/result";

/** What the status functions answer: set by the run (for a job's `if:`) or by the step runner. */
export interface StatusFacts {
  /** No earlier step / needed job failed or was cancelled. */
  readonly success: boolean;
  /** Some earlier step / needed job failed. */
  readonly failure: boolean;
  /** The run was cancelled. */
  readonly cancelled: boolean;
}

export interface EvalContext {
  /** `github`, `inputs`, `matrix`, `steps`, `needs`, `secrets`, `runner`, `env`, `job`, `strategy`, `vars`: those the place allows. */
  readonly contexts: Readonly<Record<string, unknown>>;
  /** Absent where GitHub allows no status function; then they answer as in a job where all went well. */
  readonly status?: StatusFacts;
}

/** An expression that does not parse or evaluate here; `cause` is the package's own error. */
export class ExpressionFailure extends Error {
  override readonly name = "ExpressionFailure";
  constructor(
    readonly expression: string,
    cause: unknown,
  ) {
    super(`${cause instanceof Error ? cause.message : String(cause)} in expression: ${expression}`, { cause });
  }
}

const ALL_WELL: StatusFacts = { success: true, failure: false, cancelled: false };

function statusFunctions(status: StatusFacts): Map<string, FunctionDefinition> {
  const answer = (name: string, value: boolean): [string, FunctionDefinition] => [
    name.toLowerCase(),
    { name, minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(value) },
  ];
  return new Map([
    answer("success", status.success && !status.cancelled),
    answer("failure", status.failure),
    answer("always", true),
    answer("cancelled", status.cancelled),
  ]);
}

/** Plain JSON-shaped values → the package's data (objects become its case-insensitive dictionaries). */
export function toData(value: unknown): data.ExpressionData {
  return JSON.parse(JSON.stringify(value ?? null), data.reviver) as data.ExpressionData;
}

/** The package's data → plain values (null, boolean, number, string, arrays, objects). */
export function toPlain(value: data.ExpressionData): unknown {
  return JSON.parse(JSON.stringify(value, data.replacer)) as unknown;
}

/** GitHub's string form of a value: null is '', objects and arrays are 'Object' and 'Array'. */
export function toText(value: data.ExpressionData): string {
  return value.coerceString();
}

export function isTruthy(value: data.ExpressionData): boolean {
  return truthy(value);
}

/**
 * Parses and evaluates `source` (without `${{ }}`) with the contexts and status of `context`.
 * A context the place does not provide is an unrecognized named-value, as on GitHub.
 *
 * @example evaluateExpression("startsWith(github.event.comment.body, '/naruto')", { contexts: { github } })
 */
export function evaluateExpression(source: string, context: EvalContext): data.ExpressionData {
  const functions = statusFunctions(context.status ?? ALL_WELL);
  try {
    const { tokens } = new Lexer(source).lex();
    const tree = new Parser(tokens, Object.keys(context.contexts), [...functions.values()]).parse();
    return new Evaluator(tree, toData(context.contexts) as data.Dictionary, functions).evaluate();
  } catch (error) {
    throw new ExpressionFailure(source, error);
  }
}
