/**
 * GitHub's JSON shapes for accounts, repositories, issues and comments, trimmed to the fields
 * that matter but always with `id`, `node_id`, `url` and `html_url` where GitHub has them.
 */
import { userRole } from "./auth.ts";
import { isoTime, roleAtLeast, type Account, type CommentState, type IssueState, type ReactionState, type RepoState, type World } from "./state.ts";

/** Where the answer's links point: the API base the request came in on, and the web base. */
export interface Urls {
  /** `http://127.0.0.1:N` or `http://127.0.0.1:N/api/v3`. */
  readonly api: string;
  readonly web: string;
}

/** GitHub's legacy global node id: base64 of `0<len>:<Type><id>`. */
export function nodeId(type: string, id: number | string): string {
  return Buffer.from(`0${type.length}:${type}${id}`).toString("base64");
}

export function userShape(urls: Urls, account: Account): Record<string, unknown> {
  const api = account.type === "Bot" ? `${urls.api}/users/${encodeURIComponent(account.login)}` : `${urls.api}/users/${account.login}`;
  return {
    login: account.login,
    id: account.id,
    node_id: nodeId(account.type === "Bot" ? "Bot" : account.type, account.id),
    avatar_url: `${urls.web}/avatars/${account.id}`,
    url: api,
    html_url: account.type === "Bot" ? `${urls.web}/apps/${account.login.replace(/\[bot\]$/, "")}` : `${urls.web}/${account.login}`,
    type: account.type,
    site_admin: false,
  };
}

export function repoApi(urls: Urls, repo: RepoState): string {
  return `${urls.api}/repos/${repo.fullName}`;
}

export function repoShape(urls: Urls, repo: RepoState, viewer?: Account): Record<string, unknown> {
  const shape: Record<string, unknown> = {
    id: repo.id,
    node_id: nodeId("Repository", repo.id),
    name: repo.name,
    full_name: repo.fullName,
    private: repo.private,
    visibility: repo.private ? "private" : "public",
    owner: userShape(urls, repo.owner),
    html_url: `${urls.web}/${repo.fullName}`,
    url: repoApi(urls, repo),
    clone_url: `${urls.web}/${repo.fullName}.git`,
    default_branch: repo.defaultBranch,
    fork: false,
    archived: false,
    disabled: false,
  };
  if (viewer !== undefined && viewer.type !== "Bot") {
    const role = userRole(repo, viewer);
    shape["permissions"] = {
      admin: roleAtLeast(role, "admin"),
      maintain: roleAtLeast(role, "maintain"),
      push: roleAtLeast(role, "write"),
      triage: roleAtLeast(role, "triage"),
      pull: roleAtLeast(role, "read"),
    };
  }
  return shape;
}

export function authorAssociation(repo: RepoState, account: Account): string {
  if (account.login.toLowerCase() === repo.owner.login.toLowerCase()) return "OWNER";
  return repo.collaborators.has(account.login.toLowerCase()) ? "COLLABORATOR" : "NONE";
}

export function issueShape(urls: Urls, repo: RepoState, issue: IssueState): Record<string, unknown> {
  const api = `${repoApi(urls, repo)}/issues/${issue.number}`;
  const comments = [...repo.comments.values()].filter((c) => c.issueNumber === issue.number).length;
  const shape: Record<string, unknown> = {
    id: issue.id,
    node_id: nodeId(issue.isPull ? "PullRequest" : "Issue", issue.id),
    url: api,
    repository_url: repoApi(urls, repo),
    comments_url: `${api}/comments`,
    html_url: `${urls.web}/${repo.fullName}/${issue.isPull ? "pull" : "issues"}/${issue.number}`,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    user: userShape(urls, issue.user),
    labels: [],
    state: issue.state,
    locked: false,
    comments,
    created_at: isoTime(issue.createdAt),
    updated_at: isoTime(issue.updatedAt),
    closed_at: issue.closedAt === null ? null : isoTime(issue.closedAt),
    author_association: authorAssociation(repo, issue.user),
  };
  if (issue.isPull) {
    shape["pull_request"] = {
      url: `${repoApi(urls, repo)}/pulls/${issue.number}`,
      html_url: `${urls.web}/${repo.fullName}/pull/${issue.number}`,
      diff_url: `${urls.web}/${repo.fullName}/pull/${issue.number}.diff`,
      patch_url: `${urls.web}/${repo.fullName}/pull/${issue.number}.patch`,
    };
  }
  return shape;
}

export function commentShape(urls: Urls, world: World, repo: RepoState, comment: CommentState): Record<string, unknown> {
  const issue = repo.issues.get(comment.issueNumber);
  const kind = issue?.isPull === true ? "pull" : "issues";
  return {
    id: comment.id,
    node_id: nodeId("IssueComment", comment.id),
    url: `${repoApi(urls, repo)}/issues/comments/${comment.id}`,
    html_url: `${urls.web}/${repo.fullName}/${kind}/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${repoApi(urls, repo)}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: userShape(urls, comment.user),
    created_at: isoTime(comment.createdAt),
    updated_at: isoTime(comment.updatedAt),
    author_association: authorAssociation(repo, comment.user),
    performed_via_github_app: comment.viaApp ? appShape(urls, world) : null,
  };
}

export function reactionShape(urls: Urls, reaction: ReactionState): Record<string, unknown> {
  return {
    id: reaction.id,
    node_id: nodeId("Reaction", reaction.id),
    user: userShape(urls, reaction.user),
    content: reaction.content,
    created_at: isoTime(reaction.createdAt),
  };
}

export function appShape(urls: Urls, world: World): Record<string, unknown> {
  return {
    id: world.app.id,
    slug: world.app.slug,
    node_id: nodeId("App", world.app.id),
    name: world.app.name,
    html_url: `${urls.web}/apps/${world.app.slug}`,
    permissions: world.app.permissions,
  };
}
