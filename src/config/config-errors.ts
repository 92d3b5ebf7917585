import { z } from "zod";
import { didYouMean } from "./did-you-mean.ts";
import { typeHints } from "./schema.ts";
import type { ConfigError } from "./types.ts";

type Issue = z.core.$ZodIssue;
type Key = PropertyKey;

/**
 * Turns zod's issues into errors a config author can act on: the field's path, what is allowed
 * there, and for an unknown key the key it was probably meant to be (also when it belongs at
 * another level, like `max_parallel` written at the top instead of under `limits`).
 */
export function configErrorsOf(issues: readonly Issue[], schema: z.ZodType): ConfigError[] {
  const errors: ConfigError[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        errors.push({ path: formatPath([...issue.path, key]), message: unknownKeyMessage(schema, issue.path, key) });
      }
    } else {
      errors.push({ path: formatPath(issue.path), message: messageOf(issue, schema) });
    }
  }
  return errors;
}

/** `["agents", "my.bot", "env", 0]` → `agents["my.bot"].env[0]`; the root is `(root)`. */
export function formatPath(path: readonly Key[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z0-9_-]+$/.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out === "" ? "(root)" : out;
}

function messageOf(issue: Issue, schema: z.ZodType): string {
  switch (issue.code) {
    case "invalid_type": {
      const node = schemaAt(schema, issue.path);
      const expected = (node && typeHints.get(node)?.expected) ?? describeType(issue.expected);
      return `expected ${expected}, got ${describeValue(issue.input)}`;
    }
    case "invalid_value":
      return issue.values.length === 1 ? `must be ${JSON.stringify(issue.values[0])}` : `must be one of: ${issue.values.map((v) => String(v)).join(", ")}`;
    case "too_big":
      return issue.origin === "array" ? `must have at most ${issue.maximum} entries` : `must be at most ${issue.maximum}`;
    case "too_small":
      if (issue.origin === "string") return "must not be empty";
      if (issue.origin === "array") return `must have at least ${issue.minimum} entries`;
      return issue.inclusive === false ? `must be greater than ${issue.minimum}` : `must be at least ${issue.minimum}`;
    case "invalid_key":
      return issue.issues[0]?.message ?? issue.message;
    default:
      return issue.message;
  }
}

function describeType(expected: string): string {
  const names: Record<string, string> = {
    number: "a number",
    int: "a whole number",
    string: "a string",
    boolean: "true or false",
    object: "a mapping (key: value)",
    record: "a mapping (key: value)",
    array: "a list",
  };
  return names[expected] ?? expected;
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "number" && !Number.isInteger(value)) return `${value}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

function unknownKeyMessage(schema: z.ZodType, at: readonly Key[], key: string): string {
  const here = knownKeysAt(schema, at);
  const near = didYouMean(key, here);
  if (near !== null) return `unknown key; did you mean "${near}"?`;
  const elsewhere = allKeyPaths(schema).filter((p) => p.at(-1) === key);
  if (elsewhere.length > 0) return `unknown key here; did you mean ${elsewhere.map((p) => `"${p.join(".")}"`).join(" or ")}?`;
  return here.length > 0 ? `unknown key; allowed keys: ${here.join(", ")}` : "unknown key";
}

/** The keys an object in the schema allows at `path`. */
export function knownKeysAt(schema: z.ZodType, path: readonly Key[]): string[] {
  const node = schemaAt(schema, path);
  return node instanceof z.ZodObject ? Object.keys(node.shape) : [];
}

/** The schema of the value at `path` (map entries and list items stepped through), unwrapped. */
function schemaAt(schema: z.ZodType, path: readonly Key[]): z.ZodType | null {
  let node: z.ZodType | null = unwrap(schema);
  for (const key of path) {
    if (node instanceof z.ZodObject) node = (node.shape as Record<string, z.ZodType>)[String(key)] ?? null;
    else if (node instanceof z.ZodRecord) node = node.valueType as z.ZodType;
    else if (node instanceof z.ZodArray) node = node.element as z.ZodType;
    else node = null;
    if (node === null) return null;
    node = unwrap(node);
  }
  return node;
}

/** Every key path of the schema's objects, map entries written as `<name>`. */
function allKeyPaths(schema: z.ZodType, prefix: string[] = []): string[][] {
  const node = unwrap(schema);
  if (node instanceof z.ZodRecord) return allKeyPaths(node.valueType as z.ZodType, [...prefix, "<name>"]);
  if (!(node instanceof z.ZodObject)) return [];
  return Object.entries(node.shape as Record<string, z.ZodType>).flatMap(([key, child]) => [[...prefix, key], ...allKeyPaths(child, [...prefix, key])]);
}

function unwrap(schema: z.ZodType): z.ZodType {
  let node = schema;
  while (node instanceof z.ZodDefault || node instanceof z.ZodPrefault || node instanceof z.ZodOptional || node instanceof z.ZodNullable) {
    node = node.unwrap() as z.ZodType;
  }
  return node;
}
