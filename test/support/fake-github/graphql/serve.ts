/**
 * `POST /graphql` (and `/api/graphql`, where GitHub Enterprise Server serves it): GitHub's
 * answers for a query. Authentication is required (401 otherwise); a document that does not
 * parse or validate against the fake's schema is answered 200 with `errors` and no `data`, in
 * GitHub's words where they differ from graphql-js's; a field that cannot be resolved (a
 * repository the token cannot see, a missing pull request, a missing permission) is null in
 * `data` with a `{ type, message, path, locations }` entry in `errors`. With an answer limit
 * (`setGraphqlAnswerLimit`), a longer answer is GitHub's 502 for a query it could not finish.
 */
import { randomBytes } from "node:crypto";
import { execute, type GraphQLError, parse, validate, type DocumentNode } from "graphql";
import type { Principal } from "../auth.ts";
import { GitHubError, type Reply } from "../errors.ts";
import type { Urls } from "../shapes.ts";
import type { World } from "../state.ts";
import { FieldError } from "./connection.ts";
import { rootValue } from "./resolvers.ts";
import { fakeSchema } from "./schema.ts";

const HEADERS = { "x-ratelimit-resource": "graphql" };
const DOCS = "https://docs.github.com/graphql";

export interface GraphqlAnswer {
  readonly reply: Reply;
  /** The query broke GitHub's schema: recorded as violations, like a bad REST request. */
  readonly problems: readonly string[];
}

export async function serveGraphql(input: { world: World; principal: Principal; urls: Urls; body: unknown; unparsable: boolean }): Promise<GraphqlAnswer> {
  const { principal } = input;
  if (principal.kind === "anonymous" || principal.kind === "app") {
    const reply = new GitHubError(401, "This endpoint requires you to be authenticated.").toReply();
    return {
      reply: { ...reply, body: { ...(reply.body as object), documentation_url: `${DOCS}/guides/forming-calls-with-graphql#authenticating-with-graphql` } },
      problems: [],
    };
  }
  if (input.unparsable) return { reply: new GitHubError(400, "Problems parsing JSON").toReply(), problems: ["the request body is not JSON"] };
  const body = (typeof input.body === "object" && input.body !== null ? input.body : {}) as Record<string, unknown>;
  const query = body["query"];
  if (typeof query !== "string") {
    const message = "A query attribute must be specified and must be a string.";
    return { reply: answer({ errors: [{ message }] }), problems: [message] };
  }
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (error) {
    const e = error as GraphQLError;
    const errors = [{ message: `Parse error on ${e.message}`, locations: e.locations ?? [] }];
    return { reply: answer({ errors }), problems: errors.map((x) => x.message) };
  }
  const invalid = validate(fakeSchema(), document);
  if (invalid.length > 0) {
    const errors = invalid.map(githubValidationError);
    return { reply: answer({ errors }), problems: errors.map((x) => String(x["message"])) };
  }
  const variables = body["variables"];
  const result = await execute({
    schema: fakeSchema(),
    document,
    rootValue: rootValue({ world: input.world, principal, urls: input.urls }),
    variableValues: typeof variables === "object" && variables !== null ? (variables as Record<string, unknown>) : {},
    operationName: typeof body["operationName"] === "string" ? body["operationName"] : null,
  });
  const out: Record<string, unknown> = {};
  if (result.data !== undefined) out["data"] = result.data;
  if (result.errors !== undefined && result.errors.length > 0) out["errors"] = result.errors.map(githubFieldError);
  // A crash in a resolver is the fake's bug, not GitHub's answer: it fails the test.
  const crashes = (result.errors ?? []).filter((e) => e.originalError !== undefined && !(e.originalError instanceof FieldError) && e.path !== undefined);
  if (input.world.graphqlAnswerLimit !== null && crashes.length === 0 && JSON.stringify(out).length > input.world.graphqlAnswerLimit)
    return { reply: unfinished(), problems: [] };
  return { reply: answer(out), problems: crashes.map((e) => `fake-github failed resolving ${e.path?.join(".")}: ${e.originalError?.stack ?? e.message}`) };
}

/**
 * What GitHub answers a query it cannot finish within 10 s: a 502 after those 10 s, `data` null
 * and one error (the wording GitHub sends, with its request id).
 */
function unfinished(): Reply {
  const id = randomBytes(8).toString("hex").toUpperCase();
  const message = `Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug. Please include \`${id.slice(0, 4)}:${id.slice(4, 8)}:${id.slice(8)}\` when reporting this issue.`;
  return { status: 502, body: { data: null, errors: [{ message }] }, headers: HEADERS };
}

function answer(body: unknown): Reply {
  return { status: 200, body, headers: HEADERS };
}

/** graphql-ruby's wording (what GitHub runs) for the validation errors a client most often hits. */
function githubValidationError(e: GraphQLError): Record<string, unknown> {
  const locations = e.locations ?? [];
  const field = /^Cannot query field "([^"]+)" on type "([^"]+)"\./.exec(e.message);
  if (field) {
    return {
      extensions: { code: "undefinedField", typeName: field[2], fieldName: field[1] },
      locations,
      message: `Field '${field[1]}' doesn't exist on type '${field[2]}'`,
    };
  }
  const argument = /^Unknown argument "([^"]+)" on field "([^".]+)\.([^"]+)"\./.exec(e.message);
  if (argument) {
    return {
      extensions: { code: "argumentNotAccepted", name: argument[3], typeName: "Field", argumentName: argument[1] },
      locations,
      message: `Field '${argument[3]}' doesn't accept argument '${argument[1]}'`,
    };
  }
  return { locations, message: e.message };
}

function githubFieldError(e: GraphQLError): Record<string, unknown> {
  const original = e.originalError;
  const out: Record<string, unknown> = {};
  if (original instanceof FieldError) out["type"] = original.type;
  if (e.path !== undefined) out["path"] = e.path;
  out["locations"] = e.locations ?? [];
  out["message"] = original instanceof FieldError ? original.message : e.message;
  return out;
}
