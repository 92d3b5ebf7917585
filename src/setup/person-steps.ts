/**
 * What only a person can do once `naruto init` wrote the files, each with the exact place: the
 * secret (its value is theirs), the Actions setting that lets the workflow open the queue pull
 * request (an admin's), and with the App its installation and the login of its comments.
 * Doctor's fixes say the same things, from the same functions.
 */
import { webUrl, type GitHubRepository } from "./remote-url.ts";

/** `<repository>/settings/...`, or a description of the page when the repository is not known. */
function page(repo: GitHubRepository | null, path: string, what: string): string {
  return repo === null ? `the repository's ${what}` : `${webUrl(repo)}/${path}`;
}

const repoFlag = (repo: GitHubRepository | null) => (repo === null ? "" : ` --repo ${repo.owner}/${repo.name}`);

export function secretStep(repo: GitHubRepository | null, name: string, hint: string | null): string {
  return `Add the repository secret ${name}${hint === null ? "" : ` (${hint})`}: ${page(repo, "settings/secrets/actions/new", "Settings → Secrets and variables → Actions → New repository secret")}\n     or: gh secret set ${name}${repoFlag(repo)}`;
}

export function pullRequestSettingStep(repo: GitHubRepository | null): string {
  const org =
    repo === null
      ? ""
      : `\n     (an organisation's repository: the organisation must allow it first, https://${repo.host}/organizations/${repo.owner}/settings/actions)`;
  return `Tick "Allow GitHub Actions to create and approve pull requests" under Workflow permissions, and Save: ${page(repo, "settings/actions", "Settings → Actions → General")}${org}\n     or: gh api -X PUT repos/${repo === null ? "OWNER/NAME" : `${repo.owner}/${repo.name}`}/actions/permissions/workflow -F can_approve_pull_request_reviews=true`;
}

export function appInstallStep(repo: GitHubRepository | null, slug: string | null): string {
  const host = repo?.host ?? "github.com";
  const where =
    slug === null
      ? `https://${host}/settings/apps (your App → Install App)`
      : host === "github.com"
        ? `https://github.com/apps/${slug}/installations/new`
        : `https://${host}/github-apps/${slug}/installations/new`;
  return `Install your naruto App on this repository: ${where}\n     (no App yet? create it from naruto's app.yml and run its server: naruto's docs/app.md)`;
}

export function botLoginStep(repo: GitHubRepository | null, slug: string | null): string {
  const value = slug === null ? "<app-slug>[bot]" : `${slug}[bot]`;
  return `Add the repository variable NARUTO_BOT_LOGIN = ${value}: ${page(repo, "settings/variables/actions/new", "Settings → Secrets and variables → Actions → Variables")}\n     or: gh variable set NARUTO_BOT_LOGIN --body '${value}'${repoFlag(repo)}`;
}

export interface PersonStepsInput {
  readonly repo: GitHubRepository | null;
  readonly secrets: ReadonlyArray<{ readonly name: string; readonly hint: string | null }>;
  readonly app: boolean;
  readonly appSlug: string | null;
  readonly defaultBranch: string | null;
}

/** The numbered list `naruto init` prints. */
export function personSteps(input: PersonStepsInput): string[] {
  const steps = [
    ...input.secrets.map((s) => secretStep(input.repo, s.name, s.hint)),
    pullRequestSettingStep(input.repo),
    ...(input.app ? [appInstallStep(input.repo, input.appSlug), botLoginStep(input.repo, input.appSlug)] : []),
    `Commit .github/workflows/naruto.yml and .github/naruto.yml and push them to ${input.defaultBranch ?? "the default branch"}: GitHub runs the workflow from the default branch only.`,
  ];
  return steps.map((step, i) => `  ${i + 1}. ${step}`);
}
