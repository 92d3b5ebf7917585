/**
 * Pull requests and check runs: the queue PR (`naruto/<mission>` → base) and the check run on
 * its head.
 */
import { PullRequestExistsError } from "./errors.ts";
import { nullOn404 } from "./adapter-issues.ts";
import { CHECK_TEXT_LIMIT, COMMENT_BODY_LIMIT, truncate } from "./limits.ts";
import { ONCE } from "./octokit-client.ts";
import type { AdapterContext } from "./adapter-context.ts";
import type { CheckOutput, CheckRun, GitHubPort, PullRequest } from "./port.ts";

type PullsPart = Pick<
  GitHubPort,
  "findPullRequest" | "listPullRequests" | "createPullRequest" | "updatePullRequest" | "getPullRequest" | "createCheckRun" | "updateCheckRun" | "listCheckRuns"
>;

interface PullData {
  number: number;
  html_url: string;
  state: string;
  title: string;
  head: { ref: string; sha: string };
  base: { ref: string };
}

interface CheckData {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  html_url: string | null;
  external_id: string | null;
  app?: { slug?: string } | null;
}

export function pullsPart(ctx: AdapterContext): PullsPart {
  const { octokit, repo, call } = ctx;

  const findPullRequest: PullsPart["findPullRequest"] = ({ head, base }) =>
    call(`find pull request from ${head}`, async () => {
      // `head` must be `owner:branch`; a bare branch name matches every pull request.
      const pulls = await octokit.paginate(octokit.rest.pulls.list, {
        ...repo,
        head: `${repo.owner}:${head}`,
        state: "open",
        per_page: 100,
        ...(base ? { base } : {}),
      });
      const found = pulls.find((p) => p.head.ref === head && (base === undefined || p.base.ref === base));
      return found ? toPull(found) : null;
    });

  const findCheckRun = (headSha: string, name: string, externalId: string) =>
    call(`find check run ${name}`, async () => {
      const runs = await octokit.paginate(octokit.rest.checks.listForRef, { ...repo, ref: headSha, check_name: name, filter: "all", per_page: 100 });
      const found = runs.find((r) => r.external_id === externalId);
      return found ? toCheck(found) : null;
    });

  return {
    findPullRequest,

    listPullRequests: ({ base }) =>
      call(`list pull requests into ${base}`, async () => {
        const pulls = await octokit.paginate(octokit.rest.pulls.list, { ...repo, base, state: "open", per_page: 100 });
        // A fork's branch may carry any name: only this repository's own branches count.
        const own = `${repo.owner}/${repo.repo}`.toLowerCase();
        return pulls.filter((p) => p.base.ref === base && p.head.repo?.full_name.toLowerCase() === own).map(toPull);
      }),

    listCheckRuns: ({ ref }) =>
      call(`list check runs of ${ref}`, async () => {
        const { data } = await octokit.rest.checks.listForRef({ ...repo, ref, filter: "latest", per_page: 100 });
        return data.check_runs.map((c) => toCheck(c));
      }),

    async createPullRequest({ head, base, title, body, draft, link }) {
      const operation = `open pull request ${head} → ${base}`;
      const text = truncate(body, { limit: COMMENT_BODY_LIMIT, link });
      try {
        return await ctx.createOnce({
          operation,
          create: () => octokit.rest.pulls.create({ ...repo, head, base, title, body: text, draft: draft ?? false, request: ONCE }).then((r) => toPull(r.data)),
          check: () => findPullRequest({ head, base }),
        });
      } catch (error) {
        // Another writer opened it between our look and our create: use theirs.
        if (!(error instanceof PullRequestExistsError)) throw error;
        const existing = await findPullRequest({ head, base });
        if (existing === null) throw error;
        return existing;
      }
    },

    updatePullRequest: ({ number, title, body, state, link }) =>
      call(`update pull request #${number}`, async () => {
        const { data } = await octokit.rest.pulls.update({
          ...repo,
          pull_number: number,
          ...(title === undefined ? {} : { title }),
          ...(body === undefined ? {} : { body: truncate(body, { limit: COMMENT_BODY_LIMIT, link }) }),
          ...(state === undefined ? {} : { state }),
        });
        return toPull(data);
      }),

    async getPullRequest({ number }) {
      const data = await call(`read pull request #${number}`, () => octokit.rest.pulls.get({ ...repo, pull_number: number }).then((r) => r.data)).catch(
        nullOn404,
      );
      if (data === null) return null;
      const headRepo = data.head.repo?.full_name ?? null;
      return {
        number: data.number,
        url: data.html_url,
        title: data.title,
        state: data.state === "closed" ? "closed" : "open",
        head: { ref: data.head.ref, sha: data.head.sha, repo: headRepo },
        base: { ref: data.base.ref, sha: data.base.sha },
        fromFork: headRepo === null || headRepo.toLowerCase() !== `${repo.owner}/${repo.repo}`.toLowerCase(),
      };
    },

    createCheckRun: ({ name, headSha, externalId, status, conclusion, output, detailsUrl, link }) =>
      ctx.createOnce({
        operation: `create check run ${name}`,
        create: () =>
          octokit.rest.checks
            .create({
              ...repo,
              name,
              head_sha: headSha,
              external_id: externalId,
              status,
              ...(conclusion === undefined ? {} : { conclusion }),
              ...(output === undefined ? {} : { output: fitOutput(output, link) }),
              ...(detailsUrl === undefined ? {} : { details_url: detailsUrl }),
              request: ONCE,
            })
            .then((r) => toCheck(r.data)),
        check: () => findCheckRun(headSha, name, externalId),
      }),

    updateCheckRun: ({ id, status, conclusion, output, detailsUrl, link }) =>
      call(`update check run ${id}`, async () => {
        const { data } = await octokit.rest.checks.update({
          ...repo,
          check_run_id: id,
          ...(status === undefined ? {} : { status }),
          ...(conclusion === undefined ? {} : { conclusion }),
          ...(output === undefined ? {} : { output: fitOutput(output, link) }),
          ...(detailsUrl === undefined ? {} : { details_url: detailsUrl }),
        });
        return toCheck(data);
      }),
  };
}

function fitOutput(output: CheckOutput, link: string | undefined): { title: string; summary: string; text?: string } {
  const summary = truncate(output.summary, { limit: CHECK_TEXT_LIMIT, link });
  return output.text === undefined
    ? { title: output.title, summary }
    : { title: output.title, summary, text: truncate(output.text, { limit: CHECK_TEXT_LIMIT, link }) };
}

function toPull(p: PullData): PullRequest {
  return {
    number: p.number,
    url: p.html_url,
    state: p.state === "closed" ? "closed" : "open",
    head: p.head.ref,
    base: p.base.ref,
    headSha: p.head.sha,
    title: p.title,
  };
}

function toCheck(c: CheckData): CheckRun {
  return {
    id: c.id,
    name: c.name,
    headSha: c.head_sha,
    status: c.status,
    conclusion: c.conclusion,
    url: c.html_url,
    externalId: c.external_id,
    app: c.app?.slug ?? null,
  };
}
