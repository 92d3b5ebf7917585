/**
 * GitHub's published GraphQL schema (@octokit/graphql-schema, downloaded from GitHub's API) as
 * the judge of the queries naruto sends and of the fake's own schema (schema.ts).
 *
 * Loading it costs seconds (a 5 MB introspection result), so the fake does not load it to serve:
 * it serves schema.ts, which test/fake-github/graphql-schema.test.ts holds to be a part of
 * GitHub's, field for field. A query valid against the fake's schema is then valid against
 * GitHub's; test/github/graphql-queries.test.ts checks the port's queries against GitHub's
 * directly as well.
 */
import { buildClientSchema, execute, parse, validate, type GraphQLError, type GraphQLSchema, type IntrospectionQuery } from "graphql";

let loaded: Promise<GraphQLSchema> | null = null;

/** GitHub's schema, built once per process. */
export function githubSchema(): Promise<GraphQLSchema> {
  loaded ??= import("@octokit/graphql-schema").then(({ schema }) => buildClientSchema(schema.json as unknown as IntrospectionQuery));
  return loaded;
}

/**
 * Every way a query as sent (document and variables) breaks GitHub's schema: validation errors
 * (an unknown field or argument, a wrong variable type) and variable values GitHub would refuse
 * (a string for an `Int!`). Empty when GitHub would run it.
 *
 * @example await githubQueryProblems({ query: "{ viewer { login } }" }) // → []
 */
export async function githubQueryProblems(input: { query: string; variables?: Readonly<Record<string, unknown>> | null }): Promise<string[]> {
  const schema = await githubSchema();
  let document;
  try {
    document = parse(input.query);
  } catch (error) {
    return [`does not parse: ${String(error)}`];
  }
  const invalid = validate(schema, document);
  if (invalid.length > 0) return invalid.map(describe);
  // Executing without resolvers resolves every field to null; what is left are the errors GitHub
  // raises before it runs anything: variable values that do not fit their declared types.
  const result = await execute({ schema, document, variableValues: { ...(input.variables ?? {}) }, rootValue: {} });
  return (result.errors ?? []).filter((e) => e.path === undefined).map(describe);
}

function describe(error: GraphQLError): string {
  const at = (error.locations ?? []).map((l) => `${l.line}:${l.column}`).join(", ");
  return at === "" ? error.message : `${error.message} (at ${at})`;
}
