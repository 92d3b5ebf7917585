/**
 * The fake's GraphQL schema (graphql/schema.ts) is a part of GitHub's published one
 * (@octokit/graphql-schema): every type, field, argument, default and enum value it serves is
 * GitHub's, with GitHub's nullability. When first run it found three disagreements, since fixed:
 * `viewer` was `Actor!` (GitHub: `User!`), `Repository.owner` `Actor!` (`RepositoryOwner!`), and
 * review-thread `comments` lacked GitHub's `skip` argument.
 */
import { buildSchema, type GraphQLSchema } from "graphql";
import { beforeAll, describe, expect, it } from "vitest";
import { githubSchema } from "../support/fake-github/graphql/github-schema.ts";
import { schemaDifferences } from "../support/fake-github/graphql/schema-diff.ts";
import { fakeSchema, SDL } from "../support/fake-github/graphql/schema.ts";

let github: GraphQLSchema;
beforeAll(async () => {
  github = await githubSchema();
}, 60_000);

describe("the fake's GraphQL schema against GitHub's", () => {
  it("serves only GitHub's types and fields, with GitHub's types, nullability and arguments", () => {
    expect(schemaDifferences(fakeSchema(), github)).toEqual([]);
  });

  // The check itself, on small variations of the fake's schema: each must be caught.
  it.each<[string, [string, string], string]>([
    [
      "a field GitHub does not have",
      ["    isResolved: Boolean!", "    isResolved: Boolean!\n    isResolvedd: Boolean!"],
      "PullRequestReviewThread.isResolvedd: GitHub has no such field",
    ],
    ["a nullable field made non-null", ["    line: Int\n", "    line: Int!\n"], "PullRequestReviewThread.line: Int! in the fake, Int on GitHub"],
    [
      "a non-null field made nullable",
      ["    headRefOid: GitObjectID!", "    headRefOid: GitObjectID"],
      "PullRequest.headRefOid: GitObjectID in the fake, GitObjectID! on GitHub",
    ],
    [
      "an argument GitHub does not take",
      ["pullRequest(number: Int!)", "pullRequest(number: Int!, draft: Boolean)"],
      "Repository.pullRequest(draft): GitHub has no such argument",
    ],
    [
      "an argument of another type",
      ["pullRequest(number: Int!)", "pullRequest(number: Int)"],
      "Repository.pullRequest(number): Int in the fake, Int! on GitHub",
    ],
    [
      "an argument default of its own",
      ["followRenames: Boolean = true", "followRenames: Boolean = false"],
      "Query.repository(followRenames): Boolean = false in the fake, Boolean = true on GitHub",
    ],
    ["an argument of GitHub's left out", [", skip: Int)", ")"], "PullRequestReviewThread.comments(skip): GitHub accepts this argument, the fake does not"],
    [
      "an enum value GitHub does not have",
      ["    MERGED\n", "    MERGED\n    DRAFT\n"],
      "enum PullRequestState: CLOSED DRAFT MERGED OPEN in the fake, CLOSED MERGED OPEN on GitHub",
    ],
    ["a type GitHub does not have", ["  type PageInfo {", "  type Extra { x: Int }\n\n  type PageInfo {"], "type Extra: GitHub has no such type"],
  ])("catches %s", (_, [from, to], problem) => {
    expect(SDL).toContain(from);
    const variant = buildSchema(SDL.replace(from, to));
    expect(schemaDifferences(variant, github)).toContain(problem);
  });
});
