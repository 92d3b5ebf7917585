/**
 * GitHub's hypermedia links: the `*_url` fields every user and repository object carries, as
 * GitHub writes them (RFC 6570 templates such as `{/sha}` included). Data, so that each shape
 * builder spreads the same set instead of spelling out forty URLs.
 */

/** A user's links below `<api>/users/<login>`. */
const USER_LINKS = {
  followers_url: "/followers",
  following_url: "/following{/other_user}",
  gists_url: "/gists{/gist_id}",
  starred_url: "/starred{/owner}{/repo}",
  subscriptions_url: "/subscriptions",
  organizations_url: "/orgs",
  repos_url: "/repos",
  events_url: "/events{/privacy}",
  received_events_url: "/received_events",
} as const;

/** A repository's links below `<api>/repos/<owner>/<name>`. */
const REPO_LINKS = {
  forks_url: "/forks",
  keys_url: "/keys{/key_id}",
  collaborators_url: "/collaborators{/collaborator}",
  teams_url: "/teams",
  hooks_url: "/hooks",
  issue_events_url: "/issues/events{/number}",
  events_url: "/events",
  assignees_url: "/assignees{/user}",
  branches_url: "/branches{/branch}",
  tags_url: "/tags",
  blobs_url: "/git/blobs{/sha}",
  git_tags_url: "/git/tags{/sha}",
  git_refs_url: "/git/refs{/sha}",
  trees_url: "/git/trees{/sha}",
  statuses_url: "/statuses/{sha}",
  languages_url: "/languages",
  stargazers_url: "/stargazers",
  contributors_url: "/contributors",
  subscribers_url: "/subscribers",
  subscription_url: "/subscription",
  commits_url: "/commits{/sha}",
  git_commits_url: "/git/commits{/sha}",
  comments_url: "/comments{/number}",
  issue_comment_url: "/issues/comments{/number}",
  contents_url: "/contents/{+path}",
  compare_url: "/compare/{base}...{head}",
  merges_url: "/merges",
  archive_url: "/{archive_format}{/ref}",
  downloads_url: "/downloads",
  issues_url: "/issues{/number}",
  pulls_url: "/pulls{/number}",
  milestones_url: "/milestones{/number}",
  notifications_url: "/notifications{?since,all,participating}",
  labels_url: "/labels{/name}",
  releases_url: "/releases{/id}",
  deployments_url: "/deployments",
} as const;

function below<K extends string>(base: string, links: Readonly<Record<K, string>>): Record<K, string> {
  return Object.fromEntries(Object.entries<string>(links).map(([name, path]) => [name, `${base}${path}`])) as Record<K, string>;
}

/** `followers_url` … `received_events_url` of the user whose API URL is `userApi`. */
export function userLinks(userApi: string): Record<keyof typeof USER_LINKS, string> {
  return below(userApi, USER_LINKS);
}

/** `forks_url` … `deployments_url` of the repository whose API URL is `repoApi`. */
export function repoLinks(repoApi: string): Record<keyof typeof REPO_LINKS, string> {
  return below(repoApi, REPO_LINKS);
}
