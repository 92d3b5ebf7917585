/**
 * Review threads of a pull request, through GraphQL: the REST API has review comments but not
 * the threads they form, nor whether a thread is resolved. One query per 100 threads; the first
 * {@link REVIEW_COMMENTS_PER_THREAD} comments of each, with the thread's total.
 */
import type { AdapterContext } from "./adapter-context.ts";
import { GraphqlError } from "./errors.ts";
import { REVIEW_COMMENTS_PER_THREAD, type GitHubPort, type ReviewThread } from "./port.ts";

type ReviewThreadsPart = Pick<GitHubPort, "reviewThreads">;

/** Pages a pull request may have before naruto stops reading (100 threads each). */
const MAX_PAGES = 50;

const QUERY = `query naruto_reviewThreads($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path line originalLine
          comments(first: ${REVIEW_COMMENTS_PER_THREAD}) { totalCount nodes { body author { login } } }
        }
      }
    }
  }
}`;

interface ThreadNode {
  id: string;
  isResolved: boolean;
  isOutdated: boolean;
  path: string;
  line: number | null;
  originalLine: number | null;
  comments: { totalCount: number; nodes: ({ body: string; author: { login: string } | null } | null)[] | null };
}

interface Answer {
  repository: {
    pullRequest: {
      reviewThreads: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: (ThreadNode | null)[] | null };
    } | null;
  } | null;
}

export function reviewThreadsPart(ctx: AdapterContext): ReviewThreadsPart {
  const { octokit, repo, call } = ctx;
  return {
    reviewThreads: ({ pull }) =>
      call(`read the review threads of #${pull}`, async () => {
        const threads: ReviewThread[] = [];
        let after: string | null = null;
        for (let page = 0; page < MAX_PAGES; page++) {
          const data: Answer = await octokit.graphql<Answer>(QUERY, { owner: repo.owner, name: repo.repo, number: pull, after });
          const connection = data.repository?.pullRequest?.reviewThreads;
          if (connection === undefined) {
            // GitHub reports a missing pull request in `errors`; an answer without it and without errors is not GitHub's.
            throw new GraphqlError({ operation: `read the review threads of #${pull}`, status: 200, message: "the answer holds no pull request", errors: [] });
          }
          for (const node of connection.nodes ?? []) if (node !== null) threads.push(toThread(node));
          if (!connection.pageInfo.hasNextPage || connection.pageInfo.endCursor === null) return threads;
          after = connection.pageInfo.endCursor;
        }
        return threads;
      }),
  };
}

function toThread(node: ThreadNode): ReviewThread {
  const comments = (node.comments.nodes ?? []).filter((c) => c !== null).map((c) => ({ author: c.author?.login ?? null, body: c.body }));
  return {
    id: node.id,
    path: node.path,
    line: node.line,
    originalLine: node.originalLine,
    isResolved: node.isResolved,
    isOutdated: node.isOutdated,
    comments,
    commentCount: Math.max(node.comments.totalCount, comments.length),
  };
}
