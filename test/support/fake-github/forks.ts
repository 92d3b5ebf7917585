/**
 * Pull requests from forks, as a test sets them up (the fake has one repository per name and no
 * fork API). What naruto meets on GitHub for one: the head repository is `<owner>/<name>` with
 * `fork: true`, its branch is not in the base repository, and GitHub keeps the head commit there
 * at `refs/pull/<number>/head` — so the commit can be read, compared and pointed at by a ref.
 */
import { ZERO_SHA } from "./git-store.ts";
import { findAccount, type PullState, type World } from "./state.ts";

export interface ForkPullInput {
  /** The base repository, `owner/name`. */
  readonly repo: string;
  /** Who owns the fork (must exist: `addUser`); the pull request is theirs. */
  readonly forkOwner: string;
  /** The branch in the fork. */
  readonly headRef: string;
  /** The head commit, already among the base repository's objects (write it with the git data API). */
  readonly head: string;
  readonly base: string;
  readonly title: string;
  readonly body?: string;
}

export async function openForkPull(world: World, input: ForkPullInput): Promise<number> {
  const repo = world.repos.get(input.repo.toLowerCase());
  if (repo === undefined) throw new Error(`no repository ${input.repo}`);
  const owner = findAccount(world, input.forkOwner);
  if (owner === undefined) throw new Error(`no user ${input.forkOwner}: addUser first`);
  const git = world.gits.get(repo.dir);
  if ((await git.objectType(input.head)) !== "commit") throw new Error(`${input.head} is not a commit of ${input.repo}`);
  if ((await git.readRef(`refs/heads/${input.base}`)) === null) throw new Error(`${input.repo} has no branch ${input.base}`);
  const number = repo.nextNumber++;
  if (!(await git.updateRef(`refs/pull/${number}/head`, input.head, ZERO_SHA))) throw new Error(`refs/pull/${number}/head exists already`);
  const now = world.now();
  repo.issues.set(number, {
    number,
    id: world.nextId(),
    title: input.title,
    body: input.body ?? null,
    user: owner,
    state: "open",
    createdAt: now,
    updatedAt: now,
    closedAt: null,
    isPull: true,
  });
  const pull: PullState = {
    number,
    id: world.nextId(),
    headRef: input.headRef,
    headSha: input.head,
    baseRef: input.base,
    draft: false,
    maintainerCanModify: true,
    mergedAt: null,
    fork: { owner, repoId: world.nextId() },
  };
  repo.pulls.set(number, pull);
  return number;
}
