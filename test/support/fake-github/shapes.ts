/**
 * GitHub's JSON shapes for accounts, repositories, issues, comments, reactions and the App:
 * every field GitHub's description requires (answers.ts checks each answer against it), with
 * values built from the fake's own state and base URL. Builders are shared: an account is
 * `userShape` wherever GitHub embeds a simple user, a repository `repoShape` wherever it
 * embeds one.
 */
import { statSync } from "node:fs";
import { userRole } from "./auth.ts";
import { repoLinks, userLinks } from "./links.ts";
import {
  GITHUB_ACTIONS_APP_ID,
  isoTime,
  roleAtLeast,
  type Account,
  type CommentState,
  type IssueState,
  type ReactionState,
  type ReactionSubject,
  type RepoState,
  type Role,
  type World,
} from "./state.ts";

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

/** GitHub's `simple-user`: the account object embedded as `user`, `owner`, `actor`, `sender`…. */
export function userShape(urls: Urls, account: Account): Record<string, unknown> {
  // A bot's login has brackets (`naruto[bot]`), which GitHub percent-encodes in its URLs.
  const api = `${urls.api}/users/${encodeURIComponent(account.login)}`;
  return {
    login: account.login,
    id: account.id,
    node_id: nodeId(account.type, account.id),
    avatar_url: `${urls.web}/avatars/${account.id}`,
    gravatar_id: "",
    url: api,
    html_url: account.type === "Bot" ? `${urls.web}/apps/${account.login.replace(/\[bot\]$/, "")}` : `${urls.web}/${account.login}`,
    ...userLinks(api),
    type: account.type,
    user_view_type: "public",
    site_admin: false,
  };
}

export function repoApi(urls: Urls, repo: Pick<RepoState, "fullName">): string {
  return `${urls.api}/repos/${repo.fullName}`;
}

/** Who a repository object describes: the fake's repository, or the fork a pull request comes from. */
export interface RepoIdentity {
  readonly id: number;
  readonly name: string;
  readonly fullName: string;
  readonly owner: Account;
  readonly private: boolean;
  readonly fork: boolean;
  readonly defaultBranch: string;
}

/**
 * When the repository was created: its bare repository's birth on disk (the fake keeps no
 * other record). The fake does not track push times, so `pushed_at` and `updated_at` say the same.
 */
function createdAt(repo: RepoState): string {
  try {
    const stat = statSync(repo.dir);
    return isoTime(stat.birthtimeMs > 0 ? stat.birthtimeMs : stat.ctimeMs);
  } catch {
    return isoTime(0);
  }
}

/**
 * GitHub's `repository` (also valid as `minimal-repository`): what pull requests, runs and
 * tokens embed. `fork` describes a pull request's head repository instead (forks.ts).
 */
export function repositoryShape(urls: Urls, repo: RepoState, fork?: RepoIdentity): Record<string, unknown> {
  const identity: RepoIdentity = fork ?? { ...repo, fork: false };
  const api = repoApi(urls, identity);
  const web = `${urls.web}/${identity.fullName}`;
  const host = new URL(urls.web).host;
  const time = createdAt(repo);
  const openIssues = [...repo.issues.values()].filter((i) => i.state === "open").length;
  return {
    id: identity.id,
    node_id: nodeId("Repository", identity.id),
    name: identity.name,
    full_name: identity.fullName,
    private: identity.private,
    visibility: identity.private ? "private" : "public",
    owner: userShape(urls, identity.owner),
    html_url: web,
    description: null,
    fork: identity.fork,
    url: api,
    ...repoLinks(api),
    git_url: `git://${host}/${identity.fullName}.git`,
    ssh_url: `git@${new URL(urls.web).hostname}:${identity.fullName}.git`,
    clone_url: `${web}.git`,
    svn_url: web,
    mirror_url: null,
    homepage: null,
    language: null,
    license: null,
    size: 0,
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    open_issues: openIssues,
    open_issues_count: openIssues,
    default_branch: identity.defaultBranch,
    topics: [],
    is_template: false,
    has_issues: true,
    has_projects: true,
    has_wiki: true,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    allow_forking: true,
    web_commit_signoff_required: false,
    pushed_at: time,
    created_at: time,
    updated_at: time,
  };
}

/**
 * The repository as `GET /repos/{owner}/{repo}` answers (`full-repository`), and as the payloads
 * name it: `permissions` says what `viewer` (a user, not a bot) may do.
 */
export function repoShape(urls: Urls, repo: RepoState, viewer?: Account): Record<string, unknown> {
  const shape: Record<string, unknown> = { ...repositoryShape(urls, repo), subscribers_count: 0, network_count: 0 };
  if (viewer !== undefined && viewer.type !== "Bot") shape["permissions"] = rolePermissions(userRole(repo, viewer));
  return shape;
}

/** A role as the booleans GitHub spells it out in (`permissions` of a repository or collaborator). */
export function rolePermissions(role: Role): Record<"admin" | "maintain" | "push" | "triage" | "pull", boolean> {
  return {
    admin: roleAtLeast(role, "admin"),
    maintain: roleAtLeast(role, "maintain"),
    push: roleAtLeast(role, "write"),
    triage: roleAtLeast(role, "triage"),
    pull: roleAtLeast(role, "read"),
  };
}

export function authorAssociation(repo: RepoState, account: Account): string {
  if (account.login.toLowerCase() === repo.owner.login.toLowerCase()) return "OWNER";
  return repo.collaborators.has(account.login.toLowerCase()) ? "COLLABORATOR" : "NONE";
}

const REACTIONS = ["+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket"] as const;

/** GitHub's `reactions` summary on an issue or a comment. */
function reactionRollup(url: string, repo: RepoState, subject: ReactionSubject): Record<string, unknown> {
  const mine = repo.reactions.filter((r) =>
    subject.kind === "issue" ? r.subject.kind === "issue" && r.subject.number === subject.number : r.subject.kind === "comment" && r.subject.id === subject.id,
  );
  return { url: `${url}/reactions`, total_count: mine.length, ...Object.fromEntries(REACTIONS.map((c) => [c, mine.filter((r) => r.content === c).length])) };
}

export function issueShape(urls: Urls, repo: RepoState, issue: IssueState): Record<string, unknown> {
  const api = `${repoApi(urls, repo)}/issues/${issue.number}`;
  const comments = [...repo.comments.values()].filter((c) => c.issueNumber === issue.number).length;
  const pull = issue.isPull ? repo.pulls.get(issue.number) : undefined;
  const shape: Record<string, unknown> = {
    id: issue.id,
    node_id: nodeId(issue.isPull ? "PullRequest" : "Issue", issue.id),
    url: api,
    repository_url: repoApi(urls, repo),
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: `${urls.web}/${repo.fullName}/${issue.isPull ? "pull" : "issues"}/${issue.number}`,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    user: userShape(urls, issue.user),
    labels: [],
    state: issue.state,
    state_reason: issue.state === "closed" ? "completed" : null,
    locked: false,
    active_lock_reason: null,
    assignee: null,
    assignees: [],
    milestone: null,
    comments,
    created_at: isoTime(issue.createdAt),
    updated_at: isoTime(issue.updatedAt),
    closed_at: issue.closedAt === null ? null : isoTime(issue.closedAt),
    author_association: authorAssociation(repo, issue.user),
    reactions: reactionRollup(api, repo, { kind: "issue", number: issue.number }),
    timeline_url: `${api}/timeline`,
  };
  if (pull !== undefined) {
    shape["draft"] = pull.draft;
    shape["pull_request"] = {
      url: `${repoApi(urls, repo)}/pulls/${issue.number}`,
      html_url: `${urls.web}/${repo.fullName}/pull/${issue.number}`,
      diff_url: `${urls.web}/${repo.fullName}/pull/${issue.number}.diff`,
      patch_url: `${urls.web}/${repo.fullName}/pull/${issue.number}.patch`,
      merged_at: pull.mergedAt === null ? null : isoTime(pull.mergedAt),
    };
  }
  return shape;
}

export function commentShape(urls: Urls, world: World, repo: RepoState, comment: CommentState): Record<string, unknown> {
  const issue = repo.issues.get(comment.issueNumber);
  const kind = issue?.isPull === true ? "pull" : "issues";
  const api = `${repoApi(urls, repo)}/issues/comments/${comment.id}`;
  return {
    id: comment.id,
    node_id: nodeId("IssueComment", comment.id),
    url: api,
    html_url: `${urls.web}/${repo.fullName}/${kind}/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${repoApi(urls, repo)}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: userShape(urls, comment.user),
    created_at: isoTime(comment.createdAt),
    updated_at: isoTime(comment.updatedAt),
    author_association: authorAssociation(repo, comment.user),
    performed_via_github_app: comment.viaApp ? appShape(urls, world) : null,
    reactions: reactionRollup(api, repo, { kind: "comment", id: comment.id }),
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

/** When the fake's App was registered (it has no history; a fixed date keeps answers stable). */
export const APP_CREATED = "2026-01-01T00:00:00Z";

/** The webhook events the fake's App subscribes to, as `GET /app` and installations list them. */
export const APP_EVENTS = ["check_run", "issue_comment", "issues", "pull_request", "push", "workflow_job", "workflow_run"] as const;

/**
 * The fake's App as GitHub embeds it (`integration`: `GET /app`, a check run's `app`, a
 * comment's `performed_via_github_app`). The App has no owning account of its own in the fake;
 * an organization named after it stands in.
 */
export function appShape(urls: Urls, world: World): Record<string, unknown> {
  return appShapeOf(urls, world.app.id, { slug: world.app.slug, name: world.app.name, permissions: world.app.permissions });
}

/** The GitHub Actions app (its check runs are workflow jobs), as GitHub embeds it. */
export function actionsAppShape(urls: Urls): Record<string, unknown> {
  return appShapeOf(urls, GITHUB_ACTIONS_APP_ID, {
    slug: "github-actions",
    name: "GitHub Actions",
    permissions: { actions: "write", checks: "write", contents: "write", metadata: "read" },
  });
}

function appShapeOf(urls: Urls, id: number, app: { slug: string; name: string; permissions: Readonly<Record<string, string>> }): Record<string, unknown> {
  const world = { app: { id, ...app } };
  return {
    id: world.app.id,
    slug: world.app.slug,
    node_id: nodeId("App", world.app.id),
    owner: userShape(urls, { login: `${world.app.slug}-owner`, id: world.app.id, type: "Organization" }),
    name: world.app.name,
    description: "",
    external_url: urls.web,
    html_url: `${urls.web}/apps/${world.app.slug}`,
    created_at: APP_CREATED,
    updated_at: APP_CREATED,
    permissions: world.app.permissions,
    events: [...APP_EVENTS],
  };
}
