/**
 * The committed OpenAPI subset (openapi-subset.json, written by scripts/extract-openapi.ts):
 * finds the operation a request is for and lists how the request breaks GitHub's description.
 */
import { readFileSync } from "node:fs";
import { validateSchema, type Schema } from "./json-schema.ts";

export interface Parameter {
  readonly name: string;
  readonly in: "path" | "query" | "header";
  readonly required?: boolean;
  readonly schema?: Schema;
  readonly "x-multi-segment"?: boolean;
}

export interface Operation {
  readonly operationId: string;
  readonly method: string;
  /** GitHub's path template, e.g. `/repos/{owner}/{repo}/git/refs/{ref}`. */
  readonly path: string;
  readonly parameters: readonly Parameter[];
  readonly requestBody: { readonly required: boolean; readonly schema: Schema } | null;
}

interface Subset {
  readonly version: string | null;
  readonly operations: readonly Operation[];
}

const SUBSET = JSON.parse(readFileSync(new URL("./openapi-subset.json", import.meta.url), "utf8")) as Subset;

export const OPENAPI_VERSION = SUBSET.version;
export const OPERATIONS: readonly Operation[] = SUBSET.operations;

/** `METHOD template`, the key routes are registered under. */
export function operationKey(op: Pick<Operation, "method" | "path">): string {
  return `${op.method} ${op.path}`;
}

export interface MatchedOperation {
  readonly operation: Operation;
  /** Path parameters, percent-decoded (`heads%2Fmain` → `heads/main`). */
  readonly params: Readonly<Record<string, string>>;
}

function literalCount(op: Operation): number {
  return op.path.split("/").filter((s) => s !== "" && !s.startsWith("{")).length;
}

// The most literal template wins: `/issues/comments/{id}` before `/issues/{issue_number}`.
const BY_SPECIFICITY = [...OPERATIONS].sort((a, b) => literalCount(b) - literalCount(a));

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function matchTemplate(op: Operation, segments: readonly string[]): Record<string, string> | null {
  const template = op.path.split("/").slice(1);
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const part = template[i] ?? "";
    const name = /^\{(.+)\}$/.exec(part)?.[1];
    if (name === undefined) {
      if (segments[i] !== part) return null;
      continue;
    }
    const multi = op.parameters.some((p) => p.name === name && p["x-multi-segment"] === true);
    const taken = multi && i === template.length - 1 ? segments.slice(i) : segments.slice(i, i + 1);
    const decoded = taken.map(decode);
    if (taken.length === 0 || decoded.some((d) => d === null || d === "")) return null;
    params[name] = decoded.join("/");
    if (taken.length > 1) return params;
  }
  return segments.length === template.length ? params : null;
}

/** Finds the operation for a method and a raw (still percent-encoded) path without the query. */
export function matchOperation(method: string, rawPath: string): MatchedOperation | null {
  const segments = rawPath.replace(/\/+$/, "").split("/").slice(1);
  for (const operation of BY_SPECIFICITY) {
    if (operation.method !== method) continue;
    const params = matchTemplate(operation, segments);
    if (params !== null) return { operation, params };
  }
  return null;
}

function checkScalar(param: Parameter, raw: string): string | null {
  const schema = param.schema ?? {};
  const type = typeof schema.type === "string" ? schema.type : undefined;
  let value: unknown = raw;
  if (type === "integer") {
    if (!/^-?\d+$/.test(raw)) return `${param.in} parameter ${param.name}: "${raw}" is not an integer`;
    value = Number(raw);
  } else if (type === "boolean") {
    if (raw !== "true" && raw !== "false") return `${param.in} parameter ${param.name}: "${raw}" is not a boolean`;
    value = raw === "true";
  }
  const { type: _checkedAbove, ...rest } = schema;
  const errors = validateSchema(rest, value, `${param.in} parameter ${param.name}`);
  return errors[0] ?? null;
}

/** Every way the request breaks the operation's description (empty when it conforms). */
export function validateRequest(input: {
  readonly matched: MatchedOperation;
  readonly query: URLSearchParams;
  /** The parsed JSON body, or undefined when the request had none. */
  readonly body: unknown;
}): string[] {
  const { operation, params } = input.matched;
  const errors: string[] = [];
  for (const param of operation.parameters) {
    if (param.in === "path") {
      const value = params[param.name];
      const problem = value === undefined ? `path parameter ${param.name} is missing` : checkScalar(param, value);
      if (problem !== null) errors.push(problem);
    }
  }
  const documented = new Map(operation.parameters.filter((p) => p.in === "query").map((p) => [p.name, p]));
  for (const [name, value] of input.query) {
    const param = documented.get(name);
    if (param === undefined) errors.push(`query parameter ${name} is not documented for ${operation.operationId}`);
    else {
      const problem = checkScalar(param, value);
      if (problem !== null) errors.push(problem);
    }
  }
  for (const param of documented.values()) {
    if (param.required === true && !input.query.has(param.name)) errors.push(`query parameter ${param.name} is required`);
  }
  if (operation.requestBody === null) {
    const empty = typeof input.body === "object" && input.body !== null && Object.keys(input.body).length === 0;
    if (input.body !== undefined && !empty) errors.push(`${operation.operationId} takes no request body`);
  } else if (input.body === undefined) {
    if (operation.requestBody.required) errors.push("a request body is required");
  } else {
    errors.push(...validateSchema(operation.requestBody.schema, input.body));
  }
  return errors;
}
