/**
 * Review threads as a test sets them up (the fake has no REST or GraphQL route that writes them):
 * a reviewer's thread on a line of a pull request's file, replies, resolving, and a thread made
 * outdated by a later push. GraphQL reads them (`graphql/resolvers.ts`).
 */
import { nodeId } from "./shapes.ts";
import { findAccount, type RepoState, type ReviewThreadState, type World } from "./state.ts";

export interface AddReviewThreadInput {
  /** `owner/name`. */
  readonly repo: string;
  readonly pull: number;
  readonly path: string;
  readonly line: number;
  /** The thread's comments, oldest first; at least one. Users must exist (`addUser`). */
  readonly comments: readonly { readonly user: string; readonly body: string }[];
  readonly resolved?: boolean;
  readonly outdated?: boolean;
}

/** A thread as tests name it: its GraphQL node id and its number in the fake. */
export interface ReviewThreadHandle {
  readonly id: string;
  readonly databaseId: number;
}

function repoOf(world: World, fullName: string): RepoState {
  const repo = world.repos.get(fullName.toLowerCase());
  if (repo === undefined) throw new Error(`no repository ${fullName}`);
  return repo;
}

function accountOf(world: World, login: string) {
  const account = findAccount(world, login);
  if (account === undefined) throw new Error(`no user ${login}: addUser first`);
  return account;
}

export function addReviewThread(world: World, input: AddReviewThreadInput): ReviewThreadHandle {
  const repo = repoOf(world, input.repo);
  if (!repo.pulls.has(input.pull)) throw new Error(`${input.repo} has no pull request #${input.pull}`);
  if (input.comments.length === 0) throw new Error("a review thread starts with a comment");
  if (!Number.isInteger(input.line) || input.line < 1) throw new Error(`line ${input.line}: review comments sit on a line (1 or more)`);
  const now = world.now();
  const thread: ReviewThreadState = {
    id: world.nextId(),
    pull: input.pull,
    path: input.path,
    originalLine: input.line,
    isOutdated: input.outdated ?? false,
    isResolved: input.resolved ?? false,
    resolvedBy: null,
    comments: input.comments.map((c) => ({ id: world.nextId(), body: c.body, user: accountOf(world, c.user), createdAt: now })),
  };
  repo.reviewThreads.push(thread);
  return handle(thread);
}

function threadOf(world: World, repo: string, id: string): ReviewThreadState {
  const thread = repoOf(world, repo).reviewThreads.find((t) => nodeId("PullRequestReviewThread", t.id) === id);
  if (thread === undefined) throw new Error(`${repo} has no review thread ${id}`);
  return thread;
}

export function addReviewComment(world: World, input: { repo: string; thread: string; user: string; body: string }): void {
  threadOf(world, input.repo, input.thread).comments.push({ id: world.nextId(), body: input.body, user: accountOf(world, input.user), createdAt: world.now() });
}

export function setReviewThread(world: World, input: { repo: string; thread: string; resolved?: boolean; outdated?: boolean; by?: string }): void {
  const thread = threadOf(world, input.repo, input.thread);
  if (input.resolved !== undefined) {
    thread.isResolved = input.resolved;
    thread.resolvedBy = input.resolved && input.by !== undefined ? accountOf(world, input.by) : null;
  }
  if (input.outdated !== undefined) thread.isOutdated = input.outdated;
}

function handle(thread: ReviewThreadState): ReviewThreadHandle {
  return { id: nodeId("PullRequestReviewThread", thread.id), databaseId: thread.id };
}
