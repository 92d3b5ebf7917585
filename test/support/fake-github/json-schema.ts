/**
 * The small part of JSON Schema (OpenAPI 3.0 flavour) that GitHub's request bodies use:
 * type, nullable, properties, required, additionalProperties, items, enum, oneOf/anyOf/allOf,
 * and the length, count and range limits. `format` and `default` are not checked.
 *
 * One deliberate difference from JSON Schema: an object schema that lists `properties` and does
 * not say `additionalProperties` is CLOSED. GitHub's description leaves `additionalProperties`
 * out almost everywhere, and GitHub ignores fields it does not know; a client that sends one is
 * relying on something that does nothing, which is exactly what the fake exists to catch.
 */

export interface Schema {
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

/**
 * Returns every way `value` breaks `schema`, each as `where: what` (empty when it conforms).
 *
 * @example validateSchema({ type: "object", properties: { sha: { type: "string" } } }, { sha: 1 })
 *   // → ['body.sha: is integer, expected string']
 */
export function validateSchema(schema: Schema, value: unknown, at = "body"): string[] {
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
      value.forEach((item, i) => errors.push(...validateSchema(items, item, `${at}[${i}]`)));
    }
  }
  if (isRecord(value)) errors.push(...validateObject(schema, value, at));
  for (const sub of schema.allOf ?? []) errors.push(...validateSchema(sub, value, at));
  if (schema.anyOf !== undefined && !schema.anyOf.some((sub) => validateSchema(sub, value, at).length === 0)) {
    errors.push(`${at}: matches none of the allowed shapes (anyOf)`);
  }
  if (schema.oneOf !== undefined) {
    const matching = schema.oneOf.filter((sub) => validateSchema(sub, value, at).length === 0).length;
    if (matching !== 1) errors.push(`${at}: matches ${matching} of the oneOf shapes, expected exactly 1`);
  }
  return errors;
}

function validateObject(schema: Schema, value: Record<string, unknown>, at: string): string[] {
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
    if (sub !== undefined) errors.push(...validateSchema(sub, value[key], `${at}.${key}`));
    else if (typeof extra === "object") errors.push(...validateSchema(extra, value[key], `${at}.${key}`));
    else if (extra === false || (extra === undefined && schema.properties !== undefined)) {
      errors.push(`${at}.${key}: is not a documented field`);
    }
  }
  return errors;
}
