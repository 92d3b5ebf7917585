/**
 * Every request is checked against the committed OpenAPI subset: an unknown operation, an
 * undocumented query parameter or body field, or a body of the wrong shape is a violation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateSchema, type Schema } from "../support/fake-github/json-schema.ts";
import { matchOperation, OPERATIONS, validateRequest } from "../support/fake-github/openapi.ts";
import { routeCoverage } from "../support/fake-github/routes/index.ts";
import { api, field, startDemo, type Demo } from "./helpers.ts";

describe("the small JSON Schema validator", () => {
  const refSchema: Schema = { type: "object", properties: { sha: { type: "string" }, force: { type: "boolean" } }, required: ["sha"] };
  it.each<[string, Schema, unknown, string[]]>([
    ["a conforming body", refSchema, { sha: "a", force: true }, []],
    ["a missing required field", refSchema, { force: true }, ["body.sha: is required"]],
    ["an undocumented field (objects with properties are closed)", refSchema, { sha: "a", forse: true }, ["body.forse: is not a documented field"]],
    ["a wrong type", refSchema, { sha: 1 }, ["body.sha: is integer, expected string"]],
    ["an open object", { type: "object", additionalProperties: true, maxProperties: 1 }, { a: 1 }, []],
    ["too many properties", { type: "object", additionalProperties: true, maxProperties: 1 }, { a: 1, b: 2 }, ["body: more than 1 properties"]],
    ["a value outside an enum", { type: "string", enum: ["+1", "eyes"] }, "heart", ['body: "heart" is not one of ["+1","eyes"]']],
    ["null where nullable", { type: "string", nullable: true }, null, []],
    ["a string over maxLength", { type: "string", maxLength: 3 }, "abcd", ["body: longer than 3 characters"]],
    ["an item of the wrong type", { type: "array", items: { type: "integer" } }, [1, "2"], ["body[1]: is string, expected integer"]],
    [
      "no anyOf branch, with the closest one's problem",
      { anyOf: [{ required: ["a"] }, { required: ["a", "b"] }] },
      {},
      ["body: matches none of the allowed shapes (anyOf)", "  (closest shape) body.a: is required"],
    ],
  ])("reports %s", (_, schema, value, expected) => {
    expect(validateSchema(schema, value)).toEqual(expected);
  });

  // What answers need besides: named components, and formats (checked only when asked).
  const components: Record<string, Schema> = {
    user: { type: "object", properties: { login: { type: "string" }, url: { type: "string", format: "uri" } }, required: ["login", "url"] },
    "nullable-user": { type: "object", nullable: true, properties: { login: { type: "string" } }, required: ["login"] },
  };
  const answer = (schema: Schema, value: unknown) => validateSchema(schema, value, { at: "answer", components, formats: true });
  it.each<[string, Schema, unknown, string[]]>([
    ["a $ref to a conforming component", { $ref: "#/components/schemas/user" }, { login: "octo", url: "http://127.0.0.1/users/octo" }, []],
    [
      "a field missing inside a $ref",
      { type: "array", items: { $ref: "#/components/schemas/user" } },
      [{ url: "http://x/" }],
      ["answer[0].login: is required"],
    ],
    ["null through a nullable component", { $ref: "#/components/schemas/nullable-user" }, null, []],
    ["a URL that is not one", { $ref: "#/components/schemas/user" }, { login: "octo", url: "/users/octo" }, ['answer.url: "/users/octo" is not a URI']],
    ["a date-time with milliseconds and an offset", { type: "string", format: "date-time" }, "2026-01-01T00:00:00.123+02:00", []],
    ["a date that is not a date-time", { type: "string", format: "date-time" }, "2026-01-01", ['answer: "2026-01-01" is not an RFC 3339 date-time']],
  ])("with components and formats, reports %s", (_, schema, value, expected) => {
    expect(answer(schema, value)).toEqual(expected);
  });

  it("leaves formats unchecked unless asked, and names a $ref it cannot resolve", () => {
    expect(validateSchema({ type: "string", format: "uri" }, "not a uri")).toEqual([]);
    expect(() => answer({ $ref: "#/components/schemas/team" }, {})).toThrow("unresolved $ref #/components/schemas/team");
  });
});

describe("the OpenAPI subset", () => {
  it("has a route for every operation and an operation for every route", () => {
    expect(routeCoverage()).toEqual({ unrouted: [], undocumented: [] });
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(37);
  });

  it("matches encoded multi-segment parameters and prefers literal segments", () => {
    expect(matchOperation("GET", "/repos/acme/demo/git/ref/heads%2Fnaruto%2Fm-1")?.params).toMatchObject({ ref: "heads/naruto/m-1" });
    expect(matchOperation("GET", "/repos/acme/demo/git/ref/heads/naruto/m-1")?.params).toMatchObject({ ref: "heads/naruto/m-1" });
    expect(matchOperation("GET", "/repos/acme/demo/issues/comments/5")?.operation.operationId).toBe("issues/get-comment");
    expect(matchOperation("PUT", "/repos/acme/demo/pulls/1/merge")).toBeNull();
  });

  it("checks query parameters by name and type", () => {
    const matched = matchOperation("GET", "/repos/acme/demo/issues/1/comments");
    if (matched === null) throw new Error("no match");
    expect(validateRequest({ matched, query: new URLSearchParams("per_page=100&page=2"), body: undefined })).toEqual([]);
    expect(validateRequest({ matched, query: new URLSearchParams("per_page=lots"), body: undefined })).toEqual([
      'query parameter per_page: "lots" is not an integer',
    ]);
    expect(validateRequest({ matched, query: new URLSearchParams("sort=asc"), body: undefined })).toEqual([
      "query parameter sort is not documented for issues/list-comments",
    ]);
  });
});

describe("the server's validation", () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(async () => {
    await demo.github.close();
  });

  it("rejects an undocumented body field with 422 and records a violation that fails the test", async () => {
    const answer = await api(demo.github, demo.maintainer)("PATCH", "/repos/acme/demo/git/refs/heads/main", { sha: demo.mainSha, fast_forward_only: true });
    expect(answer.status).toBe(422);
    expect(String(field(answer.body, "message"))).toContain("body.fast_forward_only: is not a documented field");
    expect(demo.github.violations).toEqual([
      {
        method: "PATCH",
        path: "/repos/acme/demo/git/refs/heads/main",
        operation: "PATCH /repos/{owner}/{repo}/git/refs/{ref}",
        problems: ["body.fast_forward_only: is not a documented field"],
      },
    ]);
    expect(() => demo.github.assertNoViolations()).toThrow(/fast_forward_only/);
    demo.github.violations.length = 0;
  });

  it("rejects operations outside the subset with 404 and an undocumented query parameter with 422", async () => {
    const call = api(demo.github, demo.maintainer);
    expect((await call("PUT", "/repos/acme/demo/pulls/1/merge", {})).status).toBe(404);
    expect((await call("GET", "/repos/acme/demo/issues/1/comments?sort=created")).status).toBe(422);
    expect(demo.github.violations.map((v) => v.problems[0])).toEqual([
      "PUT /repos/acme/demo/pulls/1/merge is not an operation in the fake's OpenAPI subset",
      "query parameter sort is not documented for issues/list-comments",
    ]);
    demo.github.violations.length = 0;
  });

  it("leaves GraphQL out of the REST description: POST /graphql is answered by the GraphQL endpoint (graphql.test.ts)", async () => {
    const answer = await api(demo.github, demo.maintainer, { base: demo.github.url })("POST", "/graphql", { query: "{ viewer { login } }" });
    expect(answer.status).toBe(200);
    expect(field(answer.body, "data", "viewer", "login")).toBe("octo-maintainer");
    expect(demo.github.requests.at(-1)).toMatchObject({ kind: "graphql", operation: null });
  });

  it("records every request with its operation, status and user", async () => {
    const before = demo.github.requests.length;
    await api(demo.github, demo.outsider)("GET", "/repos/acme/demo/issues/1?");
    expect(demo.github.requests.slice(before)).toEqual([
      expect.objectContaining({
        kind: "rest",
        method: "GET",
        operation: "GET /repos/{owner}/{repo}/issues/{issue_number}",
        status: 200,
        user: "octo-outsider",
        enterprise: true,
      }),
    ]);
    demo.github.assertNoViolations();
  });
});
