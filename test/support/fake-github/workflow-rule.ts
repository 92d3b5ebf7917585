/**
 * GitHub's rule for workflow files: a GitHub App without the `workflows` permission may not
 * create or move a ref so that what it points to differs under `.github/workflows/` from what
 * was there: the old commit for an update, the default branch's head for a new ref (a branch
 * that lags behind the default branch there is refused too, as users of the REST API and of
 * `git push` have found: vercel/next.js#94596, DataDog/datadog-agent#52306 and #54090). A commit
 * with no history in common with the default branch (naruto's state branches) is compared with
 * nothing: only the workflow files it holds count. GitHub does not document that last case.
 *
 * One rule for every way a ref moves: the REST refs routes call {@link workflowRefusal}, and the
 * pre-receive hook (pre-receive.ts) applies the same comparison to a `git push`.
 *
 * What GitHub does, as users report it (checked December 2026; GitHub documents the permission,
 * not the comparison):
 * - Who: a GitHub App's installation token without `workflows: write`, and a job's
 *   `GITHUB_TOKEN`, which is one and can never have it (`permissions: workflows: write` is
 *   invalid workflow syntax: nextcloud/spreed#16336), both get "refusing to allow a GitHub App to
 *   create or update workflow `…` without `workflows` permission" (a push: after
 *   `[remote rejected]`; REST: 403, e.g. `PUT …/pulls/{n}/update-branch`, acts-project/acts#3234).
 *   A classic personal access token without the `workflow` scope gets "refusing to allow a
 *   Personal Access Token to create or update workflow `…` without `workflow` scope" (and an OAuth
 *   App "an OAuth App"); fine-grained tokens need "Workflows: write". A person's own push passes.
 * - New branches: compared with the default branch. When the default branch changes a workflow
 *   file, every new branch built on an older commit is refused (wildfly/wildfly.org#549 after a
 *   workflow change merged to main; DataDog/datadog-agent#49532 for backport branches), though
 *   the same file exists on another branch: the scopes page's "same file on another branch"
 *   exception does not save them. For a mission: every worker branch made after such a change.
 * - Updates: compared with the ref's old commit. A branch that lags keeps moving on its old base;
 *   bringing the default branch's workflow change into it (a merge of main, a rebase onto it) is
 *   refused (chdsbd/kodiak#853: "works as it should", GitHub Support). For a mission: the queue
 *   branch moves on, but a refresh onto the new default branch is refused.
 * - Creating a ref that exists: whether GitHub answers 422 "Reference already exists" or this
 *   403 first is not known; the fake weighs workflows first, so naruto must take either.
 */
import { GitHubError } from "./errors.ts";
import type { RepoGit } from "./git-store.ts";

export const WORKFLOWS_DIR = ".github/workflows";

/** GitHub's words for the refusal (the same for REST and for `git push`, where it follows `remote rejected`). */
export function workflowRefusalMessage(path: string): string {
  return `refusing to allow a GitHub App to create or update workflow \`${path}\` without \`workflows\` permission`;
}

/** The files under `.github/workflows/` of a commit, path → blob sha (and mode). */
async function workflowFiles(git: RepoGit, commit: string | null): Promise<Map<string, string>> {
  if (commit === null) return new Map();
  const dir = await git.entryAt(commit, WORKFLOWS_DIR);
  if (dir === null || dir.type !== "tree") return new Map();
  const entries = await git.lsTree(dir.sha, { recursive: true });
  return new Map(entries.filter((e) => e.type !== "tree").map((e) => [`${WORKFLOWS_DIR}/${e.path}`, `${e.mode} ${e.sha}`]));
}

/** The first path under `.github/workflows/` that differs between two commits (null: nothing there). */
export async function changedWorkflow(git: RepoGit, base: string | null, head: string): Promise<string | null> {
  if (base !== null) {
    const [a, b] = await Promise.all([git.entryAt(base, WORKFLOWS_DIR), git.entryAt(head, WORKFLOWS_DIR)]);
    if (a?.sha === b?.sha) return null;
  }
  const [before, after] = await Promise.all([workflowFiles(git, base), workflowFiles(git, head)]);
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  return paths.find((p) => before.get(p) !== after.get(p)) ?? null;
}

/**
 * Throws GitHub's 403 when moving `ref` from `from` (null: creating it) to `to` would change a
 * workflow file, for a caller without the `workflows` permission.
 */
export async function workflowRefusal(git: RepoGit, input: { from: string | null; to: string; defaultBranch: string }): Promise<void> {
  let base = input.from;
  if (base === null) {
    const head = await git.resolveCommit(input.defaultBranch);
    base = head !== null && (await git.mergeBase(head, input.to)) !== null ? head : null;
  }
  const path = await changedWorkflow(git, base, input.to);
  if (path !== null) throw new GitHubError(403, workflowRefusalMessage(path));
}
