/**
 * GitHub's webhook payload schemas (`@octokit/webhooks-schemas`, JSON Schema draft-07) as the
 * judge of every payload the fake and the Actions simulator send: a payload a test builds by hand
 * or from a stale example, missing `sender.id` or carrying a `repository` of the wrong shape,
 * would let naruto pass against the fake and fail against GitHub.
 *
 * The schemas are translated once into the dialect of the fake's own validator (json-schema.ts)
 * instead of teaching it draft-07: `$ref`s become the shared (possibly cyclic) objects they
 * name, `const` an `enum` of one, `oneOf: [X, {type: null}]` a nullable X (so a broken X is
 * reported field by field, not as "matches 0 shapes"), an absent `additionalProperties` an
 * explicit `true` (draft-07 objects are open; the fake's dialect closes them), and the formats
 * `date-time` and `uri` a `pattern`. A keyword the translation does not know fails loudly rather
 * than being skipped, so a newer schema cannot pass payloads by using it.
 */
import { createRequire } from "node:module";
import { validateSchema, type Schema } from "./json-schema.ts";

type Json = Record<string, unknown>;
type Writable = { -readonly [K in keyof Schema]: Schema[K] };

/** Keywords that only describe (or only type the TypeScript generated from the schemas). */
const IGNORED = new Set(["$schema", "title", "description", "default", "examples", "readOnly", "tsAdditionalProperties"]);
const COPIED = ["type", "required", "enum", "maxLength", "minLength", "maxItems", "minItems", "minimum", "maximum", "pattern"] as const;

/** RFC 3339 as JSON Schema's `date-time`; an absolute URI for `uri` (GitHub writes `""` for none only where the schema allows null or says nothing). */
const FORMATS: Readonly<Record<string, string | null>> = {
  "date-time": "^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$",
  uri: "^[A-Za-z][A-Za-z0-9+.-]*:",
  // A URI template (`…/labels{/name}`) is any string that may hold `{…}`: nothing to check.
  "uri-template": null,
};

const DEFINITIONS = "#/definitions/";

function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Translates GitHub's draft-07 webhook schemas; `definition(name)` answers one, sharing `$ref` targets. */
export function translateWebhookSchemas(definitions: Readonly<Record<string, unknown>>): (name: string) => Schema | null {
  const done = new Map<string, Writable>();

  const definition = (name: string): Writable | null => {
    const known = done.get(name);
    if (known !== undefined) return known;
    const raw = definitions[name];
    if (!isJson(raw)) return null;
    // Filled after it is registered, so a definition that refers to itself finds itself.
    const target: Writable = {};
    done.set(name, target);
    Object.assign(target, translate(raw, `#/definitions/${name}`));
    return target;
  };

  const translate = (raw: Json, where: string): Writable => {
    const ref = raw["$ref"];
    if (typeof ref === "string") {
      const name = ref.startsWith(DEFINITIONS) ? ref.slice(DEFINITIONS.length) : null;
      const target = name === null ? null : definition(name);
      if (target === null) throw new Error(`webhook schema ${where}: cannot resolve $ref ${ref}`);
      return target;
    }
    const out: Writable = {};
    const mutable = out as Record<string, unknown>;
    for (const [key, value] of Object.entries(raw)) {
      if (IGNORED.has(key) || key === "$ref") continue;
      if ((COPIED as readonly string[]).includes(key)) mutable[key] = value;
      else if (key === "const") out.enum = [value];
      else if (key === "format") {
        const pattern = typeof value === "string" ? FORMATS[value] : undefined;
        if (pattern === undefined) throw new Error(`webhook schema ${where}: format ${String(value)} is not checked by the fake`);
        if (pattern !== null && raw["pattern"] === undefined) out.pattern = pattern;
      } else if (key === "properties" && isJson(value)) {
        out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sub(v, `${where}.properties.${k}`)]));
      } else if (key === "additionalProperties") {
        out.additionalProperties = typeof value === "boolean" ? value : sub(value, `${where}.additionalProperties`);
      } else if (key === "items") out.items = sub(value, `${where}.items`);
      else if ((key === "oneOf" || key === "anyOf" || key === "allOf") && Array.isArray(value)) {
        out[key] = value.map((v, i) => sub(v, `${where}.${key}[${i}]`));
      } else throw new Error(`webhook schema ${where}: keyword ${key} is not checked by the fake`);
    }
    out.additionalProperties ??= true;
    return nullableOneOf(out);
  };

  const sub = (value: unknown, where: string): Writable => {
    if (!isJson(value)) throw new Error(`webhook schema ${where}: not a schema`);
    return translate(value, where);
  };

  return definition;
}

/** `{ oneOf: [X, { type: "null" }] }` → X, nullable: the same payloads pass, and a broken X says where. */
function nullableOneOf(schema: Writable): Writable {
  const branches = schema.oneOf;
  if (branches === undefined || branches.length !== 2) return schema;
  const isNull = (s: Schema) => s.type === "null";
  const other = branches.find((s) => !isNull(s));
  if (other === undefined || !branches.some(isNull) || acceptsNull(other)) return schema;
  const { oneOf: _, ...rest } = schema;
  return { ...rest, nullable: true, allOf: [...(rest.allOf ?? []), other] };
}

function acceptsNull(schema: Schema): boolean {
  return schema.nullable === true || schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"));
}

interface SchemaFile {
  readonly definitions: Readonly<Record<string, unknown>>;
}

let lookup: ((name: string) => Schema | null) | null = null;

function webhookDefinition(name: string): Schema | null {
  lookup ??= translateWebhookSchemas((createRequire(import.meta.url)("@octokit/webhooks-schemas") as SchemaFile).definitions);
  return lookup(name);
}

/**
 * The schema of one delivery: `<event>$<action>` (issue_comment$created), else the event's
 * only shape (`workflow_dispatch$event`, `ping$event`); null when GitHub publishes none
 * (`schedule` is no webhook, only a workflow trigger).
 */
export function webhookSchema(event: string, payload: unknown): Schema | null {
  const action = isJson(payload) ? payload["action"] : undefined;
  if (typeof action === "string") {
    const specific = webhookDefinition(`${event}$${action}`);
    if (specific !== null) return specific;
  }
  return webhookDefinition(`${event}$event`) ?? webhookDefinition(`${event}_event`);
}

/**
 * Every way `payload` breaks GitHub's schema for `event`, each as `payload.where: what`; empty
 * when it conforms.
 *
 * @example validateWebhook({ event: "issue_comment", payload }) // → ['payload.sender.id: is required']
 */
export function validateWebhook(input: { event: string; payload: unknown }): string[] {
  const schema = webhookSchema(input.event, input.payload);
  if (schema === null) return [`@octokit/webhooks-schemas has no schema for the ${input.event} event: GitHub sends no such webhook`];
  return validateSchema(schema, input.payload, "payload");
}

/** A payload that breaks GitHub's schema, refused before it is sent. */
export class MalformedPayloadError extends Error {
  override readonly name = "MalformedPayloadError";
  readonly event: string;
  readonly problems: readonly string[];

  constructor(input: { event: string; problems: readonly string[] }) {
    const shown = input.problems.slice(0, 20).join("\n  ");
    const more = input.problems.length > 20 ? `\n  … and ${input.problems.length - 20} more` : "";
    super(
      `the ${input.event} payload breaks @octokit/webhooks-schemas:\n  ${shown}${more}\n` +
        "Build it with the fake's payload builders (fake.payloads.*), which start from @octokit/webhooks-examples.",
    );
    this.event = input.event;
    this.problems = input.problems;
  }
}

/** Throws {@link MalformedPayloadError} unless `payload` is a well-formed `event` delivery. */
export function assertWebhookPayload(input: { event: string; payload: unknown }): void {
  const problems = validateWebhook(input);
  if (problems.length > 0) throw new MalformedPayloadError({ event: input.event, problems });
}
