/**
 * The part of GitHub's GraphQL schema the fake serves, in GitHub's own names and nullability
 * (https://docs.github.com/graphql/reference). Anything not written here does not exist: a query
 * asking for it fails validation, as a query for a field GitHub does not have would.
 *
 * test/fake-github/graphql-schema.test.ts holds every type, field, argument and enum value here
 * to GitHub's published schema (@octokit/graphql-schema, via schema-diff.ts), so a query the fake
 * accepts is one GitHub accepts.
 */
import { buildSchema, type GraphQLSchema } from "graphql";

export const SDL = /* GraphQL */ `
  scalar DateTime
  scalar GitObjectID
  scalar URI

  type Query {
    "Lookup a given repository by the owner and repository name."
    repository(owner: String!, name: String!, followRenames: Boolean = true): Repository
    "The currently authenticated user (the bot, for an installation token)."
    viewer: User!
  }

  interface Actor {
    login: String!
    url: URI!
  }

  interface RepositoryOwner {
    id: ID!
    login: String!
    url: URI!
  }

  type User implements Actor & RepositoryOwner {
    id: ID!
    login: String!
    url: URI!
  }

  type Bot implements Actor {
    id: ID!
    login: String!
    url: URI!
  }

  type Organization implements Actor & RepositoryOwner {
    id: ID!
    login: String!
    url: URI!
  }

  type Repository {
    id: ID!
    name: String!
    nameWithOwner: String!
    isPrivate: Boolean!
    owner: RepositoryOwner!
    url: URI!
    "Returns a single pull request from the current repository by number."
    pullRequest(number: Int!): PullRequest
    "A Git object in the repository"
    object(expression: String, oid: GitObjectID): GitObject
  }

  "Represents a Git object."
  interface GitObject {
    oid: GitObjectID!
  }

  type Commit implements GitObject {
    oid: GitObjectID!
    "Commit's root Tree"
    tree: Tree!
  }

  type Tree implements GitObject {
    oid: GitObjectID!
    entries: [TreeEntry!]
  }

  type TreeEntry {
    name: String!
    "Entry file type: blob, tree or commit."
    type: String!
    mode: Int!
    oid: GitObjectID!
    object: GitObject
  }

  type Blob implements GitObject {
    oid: GitObjectID!
    byteSize: Int!
    "UTF8 text data or null if the Blob is binary; GitHub cuts it at 512,000 bytes and says so in isTruncated."
    text: String
    isBinary: Boolean
    isTruncated: Boolean!
  }

  enum PullRequestState {
    OPEN
    CLOSED
    MERGED
  }

  type PullRequest {
    id: ID!
    number: Int!
    title: String!
    state: PullRequestState!
    url: URI!
    headRefName: String!
    headRefOid: GitObjectID!
    baseRefName: String!
    baseRefOid: GitObjectID!
    isCrossRepository: Boolean!
    reviewThreads(first: Int, after: String, last: Int, before: String): PullRequestReviewThreadConnection!
  }

  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }

  type PullRequestReviewThreadConnection {
    edges: [PullRequestReviewThreadEdge]
    nodes: [PullRequestReviewThread]
    pageInfo: PageInfo!
    totalCount: Int!
  }

  type PullRequestReviewThreadEdge {
    cursor: String!
    node: PullRequestReviewThread
  }

  enum DiffSide {
    LEFT
    RIGHT
  }

  type PullRequestReviewThread {
    id: ID!
    isResolved: Boolean!
    isOutdated: Boolean!
    isCollapsed: Boolean!
    path: String!
    "The line in the file to which this thread refers; null when the thread is outdated."
    line: Int
    originalLine: Int
    diffSide: DiffSide!
    resolvedBy: User
    pullRequest: PullRequest!
    comments(first: Int, after: String, last: Int, before: String, skip: Int): PullRequestReviewCommentConnection!
  }

  type PullRequestReviewCommentConnection {
    edges: [PullRequestReviewCommentEdge]
    nodes: [PullRequestReviewComment]
    pageInfo: PageInfo!
    totalCount: Int!
  }

  type PullRequestReviewCommentEdge {
    cursor: String!
    node: PullRequestReviewComment
  }

  type PullRequestReviewComment {
    id: ID!
    databaseId: Int
    body: String!
    author: Actor
    createdAt: DateTime!
    path: String!
    outdated: Boolean!
    url: URI!
  }
`;

let built: GraphQLSchema | null = null;

export function fakeSchema(): GraphQLSchema {
  built ??= buildSchema(SDL);
  return built;
}
