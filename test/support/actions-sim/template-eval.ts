/**
 * Workflow values as GitHub's parser leaves them (template tokens) → the values a run uses.
 * The parser already did the hard part: a string that is exactly one `${{ expr }}` is an
 * expression token that keeps the expression's type (a matrix `include: ${{ fromJSON(…) }}`),
 * a string with `${{ }}` inside is a `format('…{0}…', expr)` expression, and every `if:` has
 * GitHub's implicit `success() &&` when it calls no status function. What is left is the walk
 * over literals, sequences and mappings, evaluating each expression token on the way.
 */
import type { data } from "@actions/expressions";
import { isBasicExpression, isBoolean, isMapping, isNumber, isScalar, isSequence, isString } from "@actions/workflow-parser";
import type { BasicExpressionToken, MappingToken, TemplateToken } from "@actions/workflow-parser/templates/tokens/index";
import { evaluateExpression, isTruthy, toData, toPlain, toText, type EvalContext } from "./expressions.ts";

/** A token the simulator does not evaluate (`${{ insert }}`), or a value of the wrong shape. */
export class TemplateValueError extends Error {
  override readonly name = "TemplateValueError";
}

/** How a token reads in a message: a scalar as written, else its kind. */
function shown(token: TemplateToken): string {
  return isScalar(token) ? token.toDisplayString() : token.typeName();
}

/** The token's value as the package's data: literals as written, expressions evaluated. */
export function evaluateToken(token: TemplateToken, context: EvalContext): data.ExpressionData {
  if (isBasicExpression(token)) return evaluateExpression(token.expression, context);
  if (isString(token) || isNumber(token) || isBoolean(token)) return toData(token.value);
  if (isSequence(token)) return toData([...token].map((item) => toPlain(evaluateToken(item, context))));
  if (isMapping(token)) {
    const entries = [...token].map(({ key, value }) => [textOf(key, context), toPlain(evaluateToken(value, context))]);
    return toData(Object.fromEntries(entries));
  }
  if (token.isExpression) throw new TemplateValueError(`the simulator does not evaluate ${shown(token)}`);
  return toData(null);
}

/** The token's value as a plain value (null, boolean, number, string, array, object). */
export function valueOfToken(token: TemplateToken | undefined, context: EvalContext): unknown {
  return token === undefined ? undefined : toPlain(evaluateToken(token, context));
}

/**
 * The token's value as the string the runner passes on (an `env:` or `with:` value, a `run:`
 * script): GitHub's string form of a scalar; a mapping or a sequence there is an error on
 * GitHub too ("A mapping was not expected").
 */
export function textOf(token: TemplateToken, context: EvalContext): string {
  const value = evaluateToken(token, context);
  if (!value.primitive)
    throw new TemplateValueError(`${shown(token)} gave ${toText(value) === "Array" ? "a sequence" : "a mapping"} where a string is expected`);
  return toText(value);
}

/** `env:`, `with:` or `outputs:`: every value as a string, keys as written. */
export function stringsOf(mapping: MappingToken | undefined, context: EvalContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, value } of mapping ?? []) out[textOf(key, context)] = textOf(value, context);
  return out;
}

/** An `if:` as GitHub's parser left it (with its implicit `success() &&`). */
export function conditionOf(token: BasicExpressionToken, context: EvalContext): boolean {
  return isTruthy(evaluateExpression(token.expression, context));
}
