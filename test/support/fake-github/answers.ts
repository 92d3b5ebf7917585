/**
 * GitHub's description of the fake's answers (openapi-responses.json, written by
 * scripts/extract-openapi.ts): every success answer the fake gives is checked against the schema
 * GitHub publishes for that operation and status, so that a field naruto starts reading one day
 * (`mergeable`, `head_commit`, `labels`) is there against the fake as it is against GitHub.
 * Error answers (4xx, 5xx) are GitHub's small `{ message, documentation_url }` and are not checked.
 */
import { readFileSync } from "node:fs";
import { validateSchema, type Schema } from "./json-schema.ts";

interface ResponseSubset {
  readonly version: string | null;
  /** `METHOD template` → status → schema; null: that status has no JSON body. */
  readonly responses: Readonly<Record<string, Readonly<Record<string, Schema | null>>>>;
  readonly components: Readonly<Record<string, Schema>>;
}

const SUBSET = JSON.parse(readFileSync(new URL("./openapi-responses.json", import.meta.url), "utf8")) as ResponseSubset;

/** The success statuses GitHub documents for an operation (`METHOD template`), e.g. `["200", "201"]`. */
export function successStatuses(operation: string): readonly string[] {
  return Object.keys(SUBSET.responses[operation] ?? {});
}

/**
 * Every way a success answer breaks GitHub's description of it (empty when it conforms, and for
 * an error status). Objects are closed as for requests (json-schema.ts): a field GitHub does not
 * describe is reported too.
 *
 * @example validateAnswer({ operation: "GET /repos/{owner}/{repo}/git/ref/{ref}", status: 200, body })
 */
export function validateAnswer(input: { readonly operation: string; readonly status: number; readonly body: unknown }): string[] {
  if (input.status < 200 || input.status > 299) return [];
  const statuses = SUBSET.responses[input.operation];
  if (statuses === undefined) return [`answer: ${input.operation} has no described answers`];
  const schema = statuses[String(input.status)];
  if (schema === undefined)
    return [`answer: ${input.status} is not a success status GitHub documents for ${input.operation} (${Object.keys(statuses).join(", ")})`];
  if (schema === null) return input.body === undefined ? [] : [`answer: ${input.status} has no body on GitHub, the fake sent one`];
  if (input.body === undefined) return [`answer: ${input.status} has a JSON body on GitHub, the fake sent none`];
  return validateSchema(schema, input.body, { at: "answer", components: SUBSET.components, formats: true });
}
