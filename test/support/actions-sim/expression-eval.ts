/**
 * Evaluates parsed expressions the way GitHub does: loose equality that converts to numbers
 * when the types differ, case-insensitive string comparison and property names, `&&`/`||`
 * returning an operand, missing properties reading as null, and the documented functions.
 */
import { parseExpression, type Expr } from "./expression-parse.ts";

/** Where status functions look: set by the job (for a job `if:`) or by the step runner. */
export interface StatusFacts {
  /** No earlier step / needed job failed or was cancelled. */
  readonly success: boolean;
  /** Some earlier step / needed job failed. */
  readonly failure: boolean;
  /** The run was cancelled. */
  readonly cancelled: boolean;
}

export interface EvalContext {
  /** `github`, `inputs`, `matrix`, `steps`, `needs`, `secrets`, `runner`, `env`, `job`, `strategy`, `vars`. */
  readonly contexts: Readonly<Record<string, unknown>>;
  readonly status?: StatusFacts;
}

/** A failure while evaluating (an unknown function or context, bad JSON in fromJSON). */
export class ExpressionError extends Error {
  override readonly name = "ExpressionError";
}

type Value = unknown;

function isObject(value: Value): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function truthy(value: Value): boolean {
  if (value === null || value === undefined || value === false || value === "") return false;
  if (typeof value === "number") return value !== 0 && !Number.isNaN(value);
  return true;
}

function toNumber(value: Value): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") return value;
  if (typeof value === "string") return value.trim() === "" ? 0 : Number(value);
  return Number.NaN;
}

/** GitHub's string form of a value: null is '', objects and arrays are 'Object' and 'Array'. */
export function toText(value: Value): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "boolean" || typeof value === "number") return String(value);
  return Array.isArray(value) ? "Array" : "Object";
}

function looseEquals(a: Value, b: Value): boolean {
  a = a ?? null;
  b = b ?? null;
  if (typeof a === "string" && typeof b === "string") return a.toLowerCase() === b.toLowerCase();
  if (typeof a === typeof b && (typeof a !== "object" || a === null || b === null)) return a === b;
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) return a === b;
  return toNumber(a) === toNumber(b);
}

function compare(a: Value, b: Value): number {
  if (typeof a === "string" && typeof b === "string") {
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = toNumber(a);
  const y = toNumber(b);
  return Number.isNaN(x) || Number.isNaN(y) ? Number.NaN : x - y;
}

/** A property by name, matched case-insensitively as GitHub's contexts are. */
function property(object: Value, key: Value): Value {
  if (Array.isArray(object) && typeof key === "number") return object[key] ?? null;
  if (!isObject(object) && !Array.isArray(object)) return null;
  const name = toText(key);
  const record = object as Record<string, unknown>;
  if (Object.hasOwn(record, name)) return record[name] ?? null;
  const found = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
  return found === undefined ? null : (record[found] ?? null);
}

function format(template: string, args: readonly Value[]): string {
  return template.replace(/\{\{|\}\}|\{(\d+)\}/g, (match, index: string | undefined) => {
    if (match === "{{") return "{";
    if (match === "}}") return "}";
    const i = Number(index);
    if (i >= args.length) throw new ExpressionError(`format: no argument {${i}} for ${JSON.stringify(template)}`);
    return toText(args[i]);
  });
}

function call(name: string, args: readonly Value[], context: EvalContext): Value {
  const status = context.status ?? { success: true, failure: false, cancelled: false };
  const text = (i: number): string => toText(args[i]);
  switch (name) {
    case "always":
      return true;
    case "success":
      return status.success && !status.cancelled;
    case "failure":
      return status.failure;
    case "cancelled":
      return status.cancelled;
    case "startswith":
      return text(0).toLowerCase().startsWith(text(1).toLowerCase());
    case "endswith":
      return text(0).toLowerCase().endsWith(text(1).toLowerCase());
    case "contains":
      return Array.isArray(args[0]) ? args[0].some((e) => looseEquals(e, args[1])) : text(0).toLowerCase().includes(text(1).toLowerCase());
    case "format":
      return format(text(0), args.slice(1));
    case "join":
      return Array.isArray(args[0]) ? args[0].map(toText).join(args.length > 1 ? text(1) : ",") : text(0);
    case "tojson":
      return JSON.stringify(args[0] ?? null, null, 2);
    case "fromjson":
      try {
        return JSON.parse(text(0)) as Value;
      } catch (error) {
        throw new ExpressionError(`fromJSON: ${JSON.stringify(text(0).slice(0, 80))} is not JSON (${String(error)})`);
      }
    default:
      throw new ExpressionError(`unknown function ${name}() (the simulator knows always, success, failure, cancelled, startsWith, endsWith, contains, format, join, toJSON, fromJSON)`);
  }
}

export function evaluate(expr: Expr, context: EvalContext): Value {
  switch (expr.kind) {
    case "literal":
      return expr.value;
    case "context": {
      const value = property(context.contexts, expr.name);
      if (value === null && !Object.keys(context.contexts).some((k) => k.toLowerCase() === expr.name.toLowerCase())) {
        throw new ExpressionError(`unrecognized named-value: '${expr.name}'`);
      }
      return value;
    }
    case "member": {
      const object = evaluate(expr.object, context);
      if (expr.key === "*") return Array.isArray(object) ? object : isObject(object) ? Object.values(object) : [];
      const key = evaluate(expr.key, context);
      // `a.*.b` maps over the filtered array.
      if (expr.object.kind === "member" && expr.object.key === "*" && Array.isArray(object)) return object.map((e) => property(e, key));
      return property(object, key);
    }
    case "not":
      return !truthy(evaluate(expr.operand, context));
    case "binary": {
      const left = evaluate(expr.left, context);
      if (expr.op === "&&") return truthy(left) ? evaluate(expr.right, context) : left;
      if (expr.op === "||") return truthy(left) ? left : evaluate(expr.right, context);
      const right = evaluate(expr.right, context);
      if (expr.op === "==") return looseEquals(left, right);
      if (expr.op === "!=") return !looseEquals(left, right);
      const order = compare(left, right);
      if (Number.isNaN(order)) return false;
      return expr.op === "<" ? order < 0 : expr.op === "<=" ? order <= 0 : expr.op === ">" ? order > 0 : order >= 0;
    }
    case "call":
      return call(expr.name, expr.args.map((a) => evaluate(a, context)), context);
  }
}

/** Parses and evaluates `source` (without `${{ }}`). */
export function evaluateText(source: string, context: EvalContext): Value {
  return evaluate(parseExpression(source), context);
}
