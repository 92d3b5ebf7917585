/**
 * The answer side of the OpenAPI subset (test/support/fake-github/openapi-responses.json): for
 * each operation, the `application/json` schema of every success status, and the component
 * schemas those name. Components stay `$ref`s by name instead of being inlined: a pull request
 * embeds repositories and users dozens of times over, and inlining them multiplies the file.
 *
 * Kept: what validation reads (type, nullable, properties, required, items, enum, format,
 * oneOf/anyOf/allOf, limits). Dropped: descriptions, examples, titles, defaults and GitHub's
 * `x-` annotations, which are most of the 13 MB description and which no check reads.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const SCHEMA_PREFIX = "#/components/schemas/";
const DROPPED = new Set(["description", "example", "examples", "title", "default", "deprecated", "discriminator", "externalDocs", "readOnly", "writeOnly"]);

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function lookup(doc: JsonObject, ref: string): Json {
  let target: Json | undefined = doc;
  for (const part of ref.replace(/^#\//, "").split("/")) target = isObject(target) ? target[part] : undefined;
  if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
  return target;
}

/** Copies a schema without what validation never reads; queues each component it names. */
function strip(value: Json, named: (name: string) => void): Json {
  if (Array.isArray(value)) return value.map((v) => strip(v, named));
  if (!isObject(value)) return value;
  const ref = value["$ref"];
  if (typeof ref === "string") {
    if (!ref.startsWith(SCHEMA_PREFIX)) throw new Error(`unexpected $ref ${ref} in a response schema`);
    named(ref.slice(SCHEMA_PREFIX.length));
    return { $ref: ref };
  }
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (DROPPED.has(key) || key.startsWith("x-")) continue;
    // `properties` maps field names to schemas: a field may well be called `description`.
    out[key] = key === "properties" && isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, s]) => [k, strip(s, named)])) : strip(v, named);
  }
  return out;
}

export interface ResponseSubset {
  /** `METHOD path` → status code → schema (often just a `$ref`). */
  readonly responses: JsonObject;
  /** Component name → schema, every one some response reaches. */
  readonly components: JsonObject;
}

/**
 * The success answers of `operations` (`METHOD path`) and the components they reach.
 * A success status without JSON (204, 304, or a 200 that only has another media type) is kept
 * as `null`: the fake must answer it with no body.
 */
export function extractResponses(doc: JsonObject, operations: readonly string[]): ResponseSubset {
  const paths = doc["paths"];
  if (!isObject(paths)) throw new Error("the OpenAPI document has no paths");
  const pending: string[] = [];
  const named = (name: string) => pending.push(name);
  const responses: JsonObject = {};
  for (const entry of operations) {
    const [method, path] = entry.split(" ") as [string, string];
    const item = paths[path];
    const op = isObject(item) ? item[method.toLowerCase()] : undefined;
    if (!isObject(op) || !isObject(op["responses"])) throw new Error(`${entry} has no responses in the OpenAPI description`);
    const byStatus: JsonObject = {};
    for (const [status, raw] of Object.entries(op["responses"])) {
      if (!/^2\d\d$/.test(status)) continue;
      const response = isObject(raw) && typeof raw["$ref"] === "string" ? lookup(doc, raw["$ref"]) : raw;
      const content = isObject(response) && isObject(response["content"]) ? response["content"]["application/json"] : undefined;
      byStatus[status] = isObject(content) && content["schema"] !== undefined ? strip(content["schema"], named) : null;
    }
    responses[entry] = byStatus;
  }
  const components: JsonObject = {};
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (name in components) continue;
    components[name] = strip(lookup(doc, `${SCHEMA_PREFIX}${name}`), named);
  }
  const sorted = Object.fromEntries(
    Object.keys(components)
      .sort()
      .map((k) => [k, components[k] ?? null]),
  );
  return { responses, components: sorted };
}
