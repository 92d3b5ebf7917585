/**
 * The real adapter of the GitHub port, on @octokit/rest 22. Everything comes in as options:
 * entry points read the environment, this module never does.
 *
 * Behaviour (details in `octokit-client.ts` and `adapter-context.ts`):
 * - GETs, PATCHes and other repeatable requests are retried after a 5xx or a timeout, with
 *   backoff (plugin-retry); 409 and 422 never are, and surface as typed errors.
 * - A request that creates something (comment, pull request, check run, ref, dispatch) is not
 *   retried blindly: after a 5xx or timeout the adapter looks for what it would have created and
 *   sends again only when nothing is there. A dispatch cannot be looked up, so it is never resent.
 * - Rate limits (primary and secondary, 403/429 with `retry-after`) wait and retry, bounded.
 * - Each HTTP attempt has a deadline (`requestTimeoutMs`).
 * - GitHub's size limits are enforced before sending (`limits.ts`).
 *
 * @example
 * const github = createGitHub({ token, repo: { owner: "acme", repo: "demo" }, userAgent: "naruto/0.1" });
 * await github.upsertComment({ issue: 1, marker: markerFor("tracking:m-1"), body, link: runUrl });
 */
import { createAdapterContext } from "./adapter-context.ts";
import { actionsPart, type DispatchMemory } from "./adapter-actions.ts";
import { commitFilesPart } from "./adapter-commit-files.ts";
import { gitPart } from "./adapter-git.ts";
import { issuesPart } from "./adapter-issues.ts";
import { pullsPart } from "./adapter-pulls.ts";
import { reviewThreadsPart } from "./adapter-review-threads.ts";
import { createOctokitClient, type OctokitClientOptions } from "./octokit-client.ts";
import type { GitHubPort, RepoRef } from "./port.ts";

export interface CreateGitHubOptions extends OctokitClientOptions {
  readonly repo: RepoRef;
  /** Waits between the checked re-sends of a creating request (tests pass a fast one). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** What was learned of the server's dispatch API, shared by the ports of one installation and repository. */
  readonly dispatch?: DispatchMemory;
}

export function createGitHub(options: CreateGitHubOptions): GitHubPort {
  const octokit = createOctokitClient(options);
  const ctx = createAdapterContext({
    octokit,
    repo: options.repo,
    attempts: (options.retry?.retries ?? 3) + 1,
    ...(options.retry?.baseDelayMs === undefined ? {} : { baseDelayMs: options.retry.baseDelayMs }),
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
  });
  return {
    repo: options.repo,
    ...issuesPart(ctx),
    ...actionsPart(ctx, options.dispatch),
    ...pullsPart(ctx),
    ...reviewThreadsPart(ctx),
    ...gitPart(ctx),
    ...commitFilesPart(ctx),
  };
}
