/**
 * The head of a pull request, for `/naruto` on a pull request: the mission starts from it. The
 * GitHub port has no call for this yet (the App will need it too), so it is read here directly.
 */
import { Octokit } from "@octokit/rest";
import type { PullRequestHead } from "../github-driver/handle-comment.ts";

export function pullRequestHeadLookup(input: { token: string; baseUrl: string; owner: string; repo: string; userAgent: string }): (number: number) => Promise<PullRequestHead | null> {
  const octokit = new Octokit({ auth: input.token, baseUrl: input.baseUrl, userAgent: input.userAgent });
  return async (number) => {
    try {
      const { data } = await octokit.rest.pulls.get({ owner: input.owner, repo: input.repo, pull_number: number });
      const headRepo = data.head.repo?.full_name ?? "";
      return { ref: data.head.ref, sha: data.head.sha, fromFork: headRepo.toLowerCase() !== `${input.owner}/${input.repo}`.toLowerCase() };
    } catch (error) {
      if (typeof error === "object" && error !== null && "status" in error && error.status === 404) return null;
      throw error;
    }
  };
}
