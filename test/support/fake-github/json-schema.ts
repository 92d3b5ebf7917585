/**
 * The small part of JSON Schema (OpenAPI 3.0 flavour) that GitHub's description uses: type,
 * nullable, properties, required, additionalProperties, items, enum, oneOf/anyOf/allOf, the
 * length, count and range limits, and — for answers, which carry them — `$ref` to a named
 * component and `format` (date-time, uri, email). `default` is not checked.
 *
 * One deliberate difference from JSON Schema: an object schema that lists `properties` and does
 * not say `additionalProperties` is CLOSED. GitHub's description leaves `additionalProperties`
 * out almost everywhere, and GitHub ignores fields it does not know; a client that sends one is
 * relying on something that does nothing, which is exactly what the fake exists to catch. The
 * same holds for the fake's answers: a field GitHub does not describe is one a client could
 * come to rely on against the fake and never get from GitHub.
 */

export interface Schema {
  /** `#/components/schemas/<name>`, looked up in {@link ValidateOptions.components}. */
  readonly $ref?: string;
  readonly format?: string;
  readonly type?: string | readonly string[];
  readonly nullable?: boolean;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | Schema;
  readonly items?: Schema;
  readonly enum?: readonly unknown[];
  readonly oneOf?: readonly Schema[];
  readonly anyOf?: readonly Schema[];
  readonly allOf?: readonly Schema[];
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly maxItems?: number;
  readonly minItems?: number;
  readonly maxProperties?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly pattern?: string;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === "number" && actual === "integer");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export interface ValidateOptions {
  /** Where the value is, for messages (default `body`). */
  readonly at?: string;
  /** The schemas `$ref`s name, by component name (`#/components/schemas/<name>` → `<name>`). */
  readonly components?: Readonly<Record<string, Schema>>;
  /**
   * Checks `format` (date-time, uri, email). On for the fake's answers; off for requests, whose
   * formats the fake has never checked (GitHub's checks of them are not all documented).
   */
  readonly formats?: boolean;
}

interface Context {
  readonly components: Readonly<Record<string, Schema>>;
  readonly formats: boolean;
}

/**
 * Returns every way `value` breaks `schema`, each as `where: what` (empty when it conforms).
 *
 * @example validateSchema({ type: "object", properties: { sha: { type: "string" } } }, { sha: 1 })
 *   // → ['body.sha: is integer, expected string']
 * @example validateSchema({ $ref: "#/components/schemas/ref" }, answer, { at: "answer", components, formats: true })
 */
export function validateSchema(schema: Schema, value: unknown, options: string | ValidateOptions = {}): string[] {
  const { at = "body", components = {}, formats = false } = typeof options === "string" ? { at: options } : options;
  return check(schema, value, at, { components, formats });
}

const COMPONENT = "#/components/schemas/";

function deref(schema: Schema, ctx: Context): Schema {
  if (schema.$ref === undefined) return schema;
  const target = schema.$ref.startsWith(COMPONENT) ? ctx.components[schema.$ref.slice(COMPONENT.length)] : undefined;
  if (target === undefined) throw new Error(`json-schema: unresolved $ref ${schema.$ref}`);
  return deref(target, ctx);
}

/** RFC 3339 date-time as GitHub writes it: `2026-01-01T00:00:00Z` (fraction and offset allowed). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function formatProblem(format: string, value: string): string | null {
  if (format === "date-time") return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)) ? null : "is not an RFC 3339 date-time";
  if (format === "uri") return URL.canParse(value) ? null : "is not a URI";
  if (format === "email") return /^[^@\s]+@[^@\s]+$/.test(value) ? null : "is not an email address";
  return null;
}

/** The errors of the branch that came closest, so that a failed oneOf/anyOf says what is wrong. */
function closest(branches: readonly string[][]): string[] {
  const best = [...branches].sort((a, b) => a.length - b.length)[0] ?? [];
  return best.map((e) => `  (closest shape) ${e}`);
}

function check(raw: Schema, value: unknown, at: string, ctx: Context): string[] {
  const schema = deref(raw, ctx);
  if (value === null && schema.nullable === true) return [];
  const errors: string[] = [];
  if (schema.type !== undefined) {
    const types = typeof schema.type === "string" ? [schema.type] : schema.type;
    if (!types.some((t) => matchesType(value, t))) return [`${at}: is ${typeOf(value)}, expected ${types.join(" or ")}`];
  }
  if (schema.enum !== undefined && !schema.enum.includes(value)) {
    errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (schema.maxLength !== undefined && length > schema.maxLength) errors.push(`${at}: longer than ${schema.maxLength} characters`);
    if (schema.minLength !== undefined && length < schema.minLength) errors.push(`${at}: shorter than ${schema.minLength} characters`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) errors.push(`${at}: does not match ${schema.pattern}`);
    const problem = ctx.formats && schema.format !== undefined ? formatProblem(schema.format, value) : null;
    if (problem !== null) errors.push(`${at}: ${JSON.stringify(value)} ${problem}`);
  }
  if (typeof value === "number") {
    if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${at}: greater than ${schema.maximum}`);
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${at}: less than ${schema.minimum}`);
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) errors.push(`${at}: more than ${schema.maxItems} items`);
    if (schema.minItems !== undefined && value.length < schema.minItems) errors.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.items !== undefined) {
      const items = schema.items;
      value.forEach((item, i) => errors.push(...check(items, item, `${at}[${i}]`, ctx)));
    }
  }
  if (isRecord(value)) errors.push(...checkObject(schema, value, at, ctx));
  for (const sub of schema.allOf ?? []) errors.push(...check(sub, value, at, ctx));
  if (schema.anyOf !== undefined) {
    const branches = schema.anyOf.map((sub) => check(sub, value, at, ctx));
    if (!branches.some((b) => b.length === 0)) errors.push(`${at}: matches none of the allowed shapes (anyOf)`, ...closest(branches));
  }
  if (schema.oneOf !== undefined) {
    const branches = schema.oneOf.map((sub) => check(sub, value, at, ctx));
    const matching = branches.filter((b) => b.length === 0).length;
    if (matching !== 1) errors.push(`${at}: matches ${matching} of the oneOf shapes, expected exactly 1`, ...(matching === 0 ? closest(branches) : []));
  }
  return errors;
}

function checkObject(schema: Schema, value: Record<string, unknown>, at: string, ctx: Context): string[] {
  const errors: string[] = [];
  const keys = Object.keys(value);
  if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
    errors.push(`${at}: more than ${schema.maxProperties} properties`);
  }
  for (const name of schema.required ?? []) {
    if (!(name in value)) errors.push(`${at}.${name}: is required`);
  }
  const properties = schema.properties ?? {};
  const extra = schema.additionalProperties;
  for (const key of keys) {
    const sub = properties[key];
    if (sub !== undefined) errors.push(...check(sub, value[key], `${at}.${key}`, ctx));
    else if (typeof extra === "object") errors.push(...check(extra, value[key], `${at}.${key}`, ctx));
    else if (extra === false || (extra === undefined && schema.properties !== undefined)) {
      errors.push(`${at}.${key}: is not a documented field`);
    }
  }
  return errors;
}
