/**
 * `${{ }}` in workflow values: interpolation into strings, whole-value expressions that keep
 * their type (a matrix `include: ${{ fromJSON(…) }}`), and `if:` conditions with GitHub's
 * implicit `success() &&` when the condition calls no status function.
 */
import { evaluate, toText, truthy, type EvalContext } from "./expression-eval.ts";
import { ExpressionSyntaxError, parseExpression, usesStatusFunction } from "./expression-parse.ts";

interface Piece {
  readonly start: number;
  readonly end: number;
  readonly source: string;
}

/** The `${{ … }}` pieces of a string, skipping `}}` inside quoted strings. */
function pieces(text: string): Piece[] {
  const found: Piece[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf("${{", from);
    if (start === -1) return found;
    let i = start + 3;
    let quoted = false;
    while (i < text.length && (quoted || !text.startsWith("}}", i))) {
      if (text[i] === "'") quoted = !quoted;
      i++;
    }
    if (i >= text.length) throw new ExpressionSyntaxError(text, start, "'${{' without a closing '}}'");
    found.push({ start, end: i + 2, source: text.slice(start + 3, i).trim() });
    from = i + 2;
  }
}

/** Replaces every `${{ expr }}` in `text` by the string form of its value. */
export function interpolate(text: string, context: EvalContext): string {
  let out = "";
  let at = 0;
  for (const piece of pieces(text)) {
    out += text.slice(at, piece.start) + toText(evaluate(parseExpression(piece.source), context));
    at = piece.end;
  }
  return out + text.slice(at);
}

/**
 * A workflow value with its expressions evaluated: a string that is exactly one `${{ expr }}`
 * becomes the expression's value (any type); other strings are interpolated; arrays and
 * objects are evaluated member by member (keys too).
 */
export function evaluateValue(value: unknown, context: EvalContext): unknown {
  if (typeof value === "string") {
    const found = pieces(value);
    const only = found[0];
    if (found.length === 1 && only !== undefined && only.start === 0 && only.end === value.length) {
      return evaluate(parseExpression(only.source), context);
    }
    return found.length === 0 ? value : interpolate(value, context);
  }
  if (Array.isArray(value)) return value.map((v) => evaluateValue(v, context));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [interpolate(k, context), evaluateValue(v, context)]));
  }
  return value;
}

/** `with:` / `env:` values: every value becomes a string, as the runner passes them. */
export function evaluateStrings(map: unknown, context: EvalContext): Record<string, string> {
  if (typeof map !== "object" || map === null) return {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map)) {
    const evaluated = evaluateValue(value, context);
    out[key] = typeof evaluated === "object" && evaluated !== null ? JSON.stringify(evaluated) : toText(evaluated);
  }
  return out;
}

/**
 * A job or step `if:`. Absent means `success()`; a condition that calls none of `success()`,
 * `failure()`, `always()`, `cancelled()` gets an implicit `success() &&` in front.
 */
export function evaluateCondition(condition: unknown, context: EvalContext): boolean {
  if (condition === undefined || condition === null) return truthy(evaluate(parseExpression("success()"), context));
  if (typeof condition === "boolean" || typeof condition === "number") return truthy(condition);
  let source = String(condition).trim();
  const found = pieces(source);
  const only = found[0];
  if (found.length === 1 && only !== undefined && only.start === 0 && only.end === source.length) source = only.source;
  else if (found.length > 0) return truthy(interpolate(source, context));
  const expr = parseExpression(source);
  if (usesStatusFunction(expr)) return truthy(evaluate(expr, context));
  return truthy(evaluate(parseExpression("success()"), context)) && truthy(evaluate(expr, context));
}
