/**
 * The GitHub repository a git remote URL names: `https://HOST/OWNER/NAME(.git)`,
 * `git@HOST:OWNER/NAME(.git)` and `ssh://git@HOST(:PORT)/OWNER/NAME(.git)`. Where a person must
 * click (settings pages) and where doctor asks (the API) both follow from it.
 */

export interface GitHubRepository {
  /** `github.com`, or a GitHub Enterprise Server's host (with its port, when it has one). */
  readonly host: string;
  readonly owner: string;
  readonly name: string;
}

const PATTERNS = [
  /^https?:\/\/(?:[^@/]+@)?([^/]+)\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/,
  /^ssh:\/\/(?:[^@/]+@)?([^/:]+)(?::\d+)?\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/,
  /^(?:[^@/]+@)?([^:/]+):([^/]+)\/([^/]+?)(?:\.git)?\/?$/,
];

const NAME = /^[A-Za-z0-9_.-]+$/;

export function parseRemoteUrl(url: string): GitHubRepository | null {
  for (const pattern of PATTERNS) {
    const match = pattern.exec(url.trim());
    if (match === null) continue;
    const [, host, owner, name] = match;
    if (host === undefined || owner === undefined || name === undefined || !NAME.test(owner) || !NAME.test(name)) return null;
    return { host: host.toLowerCase(), owner, name };
  }
  return null;
}

/** `OWNER/NAME` as the `--repo` flag takes it. */
export function parseRepoFlag(text: string, host = "github.com"): GitHubRepository | null {
  const [owner, name, extra] = text.split("/");
  if (owner === undefined || name === undefined || extra !== undefined || !NAME.test(owner) || !NAME.test(name)) return null;
  return { host, owner, name };
}

/** The web address of the repository's pages: `https://HOST/OWNER/NAME`. */
export function webUrl(repo: GitHubRepository): string {
  return `https://${repo.host}/${repo.owner}/${repo.name}`;
}

/** The REST API's base URL: api.github.com, or `/api/v3` on a GitHub Enterprise Server. */
export function apiUrl(repo: GitHubRepository): string {
  return repo.host === "github.com" ? "https://api.github.com" : `https://${repo.host}/api/v3`;
}
