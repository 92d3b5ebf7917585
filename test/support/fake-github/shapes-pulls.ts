/**
 * GitHub's pull request shapes: `pull-request-simple` (what the list answers) and the full
 * `pull-request` (one pull request, and webhook payloads), which adds what GitHub computes for
 * one: whether it merges cleanly, its commit and line counts, its comment counts.
 */
import type { RepoGit } from "./git-store.ts";
import { authorAssociation, nodeId, repoApi, repositoryShape, userShape, type Urls } from "./shapes.ts";
import { isoTime, type IssueState, type PullState, type RepoState } from "./state.ts";

/** What a pull request's shape is read from. */
export interface PullShapeContext {
  readonly urls: Urls;
  readonly repo: RepoState;
  readonly git: RepoGit;
}

/** Where the head of the pull request lives in this repository. */
export function headRefOf(pull: PullState): string {
  return pull.fork ? `refs/pull/${pull.number}/head` : `refs/heads/${pull.headRef}`;
}

function issueOf(repo: RepoState, pull: PullState): IssueState {
  const issue = repo.issues.get(pull.number);
  if (issue === undefined) throw new Error(`pull request #${pull.number} has no issue`);
  return issue;
}

/**
 * The pull request's head: the live branch while it exists and the pull request is open (for a
 * fork's, the `refs/pull/<number>/head` GitHub keeps here).
 */
export async function liveHead(ctx: PullShapeContext, pull: PullState): Promise<string> {
  if (issueOf(ctx.repo, pull).state === "open") {
    const sha = await ctx.git.readRef(headRefOf(pull));
    if (sha !== null) pull.headSha = sha;
  }
  return pull.headSha;
}

/** GitHub's `pull-request-simple`, as `GET /repos/{owner}/{repo}/pulls` lists it. */
export async function pullSimpleShape(ctx: PullShapeContext, pull: PullState): Promise<Record<string, unknown>> {
  const { urls, repo } = ctx;
  const issue = issueOf(repo, pull);
  const api = `${repoApi(urls, repo)}/pulls/${pull.number}`;
  const issueApi = `${repoApi(urls, repo)}/issues/${pull.number}`;
  const web = `${urls.web}/${repo.fullName}/pull/${pull.number}`;
  const headSha = await liveHead(ctx, pull);
  const side = (owner: RepoState["owner"], ref: string, sha: string, repository: Record<string, unknown>) => ({
    label: `${owner.login}:${ref}`,
    ref,
    sha,
    user: userShape(urls, owner),
    repo: repository,
  });
  const fork = pull.fork;
  const headRepo =
    fork === undefined
      ? repositoryShape(urls, repo)
      : repositoryShape(urls, repo, {
          id: fork.repoId,
          name: repo.name,
          fullName: `${fork.owner.login}/${repo.name}`,
          owner: fork.owner,
          private: repo.private,
          fork: true,
          defaultBranch: repo.defaultBranch,
        });
  const links = {
    self: api,
    html: web,
    issue: issueApi,
    comments: `${issueApi}/comments`,
    review_comments: `${api}/comments`,
    review_comment: `${repoApi(urls, repo)}/pulls/comments{/number}`,
    commits: `${api}/commits`,
    statuses: `${repoApi(urls, repo)}/statuses/${headSha}`,
  };
  return {
    url: api,
    id: pull.id,
    node_id: nodeId("PullRequest", pull.id),
    html_url: web,
    diff_url: `${web}.diff`,
    patch_url: `${web}.patch`,
    issue_url: issueApi,
    commits_url: links.commits,
    review_comments_url: links.review_comments,
    review_comment_url: links.review_comment,
    comments_url: links.comments,
    statuses_url: links.statuses,
    number: pull.number,
    state: issue.state,
    locked: false,
    title: issue.title,
    user: userShape(urls, issue.user),
    body: issue.body,
    labels: [],
    milestone: null,
    active_lock_reason: null,
    created_at: isoTime(issue.createdAt),
    updated_at: isoTime(issue.updatedAt),
    closed_at: issue.closedAt === null ? null : isoTime(issue.closedAt),
    merged_at: pull.mergedAt === null ? null : isoTime(pull.mergedAt),
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: side(fork?.owner ?? repo.owner, pull.headRef, headSha, headRepo),
    base: side(repo.owner, pull.baseRef, (await ctx.git.readRef(`refs/heads/${pull.baseRef}`)) ?? "", repositoryShape(urls, repo)),
    _links: Object.fromEntries(Object.entries(links).map(([name, href]) => [name, { href }])),
    author_association: authorAssociation(repo, issue.user),
    auto_merge: null,
    draft: pull.draft,
  };
}

/**
 * Branch protection's required status checks on a pull request's head: each named check run's
 * latest on that commit completed successfully (skipped and neutral count as passing). A check
 * no run reported stays pending, and the pull request is `blocked` until it does.
 */
export function requiredChecksPass(repo: RepoState, base: string, head: string): boolean {
  const required = repo.requiredChecks.get(base) ?? [];
  return required.every((name) => {
    const latest = [...repo.checkRuns.values()].filter((c) => c.headSha === head && c.name === name).sort((a, b) => b.id - a.id)[0];
    return latest?.status === "completed" && ["success", "skipped", "neutral"].includes(latest.conclusion ?? "");
  });
}

/**
 * GitHub's full `pull-request`. `mergeable` is true when the base is an ancestor of the head
 * (nothing can conflict); otherwise null with `mergeable_state: "unknown"`, which is what GitHub
 * answers while it has not computed a test merge yet, and what clients must handle anyway.
 */
export async function pullShape(ctx: PullShapeContext, pull: PullState): Promise<Record<string, unknown>> {
  const simple = await pullSimpleShape(ctx, pull);
  const head = pull.headSha;
  const base = (await ctx.git.readRef(`refs/heads/${pull.baseRef}`)) ?? head;
  const mergeBase = (await ctx.git.mergeBase(base, head)) ?? base;
  const files = await ctx.git.diff(mergeBase, head);
  const clean = mergeBase === base;
  const reviewComments = ctx.repo.reviewThreads.filter((t) => t.pull === pull.number).reduce((n, t) => n + t.comments.length, 0);
  return {
    ...simple,
    merged: pull.mergedAt !== null,
    mergeable: clean ? true : null,
    rebaseable: clean ? true : null,
    mergeable_state: pull.draft ? "draft" : !requiredChecksPass(ctx.repo, pull.baseRef, head) ? "blocked" : clean ? "clean" : "unknown",
    merged_by: null,
    comments: [...ctx.repo.comments.values()].filter((c) => c.issueNumber === pull.number).length,
    review_comments: reviewComments,
    maintainer_can_modify: pull.maintainerCanModify,
    commits: await ctx.git.countCommits(`${mergeBase}..${head}`),
    additions: files.reduce((n, f) => n + f.additions, 0),
    deletions: files.reduce((n, f) => n + f.deletions, 0),
    changed_files: files.length,
  };
}
