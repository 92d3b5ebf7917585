/**
 * Files, reactions, marker comments and permissions: the conversation side of the port.
 */
import { GitHubError } from "./errors.ts";
import { COMMENT_BODY_LIMIT, truncate } from "./limits.ts";
import { hasMarker, isMarker, withMarker } from "./marker.ts";
import { ONCE } from "./octokit-client.ts";
import type { AdapterContext } from "./adapter-context.ts";
import { byAuthor, type Authors, type Comment, type GitHubPort, type Permission, type RecentComment } from "./port.ts";

type IssuesPart = Pick<
  GitHubPort,
  "readFile" | "addReaction" | "findComment" | "upsertComment" | "openIssue" | "permission" | "listRecentComments" | "getIssue"
>;

const ROLES: readonly Permission[] = ["admin", "maintain", "write", "triage", "read", "none"];

export function issuesPart(ctx: AdapterContext): IssuesPart {
  const { octokit, repo, call } = ctx;

  const findComment: IssuesPart["findComment"] = async ({ issue, marker, author }) => {
    checkMarker(marker);
    const matches = (c: { body?: string | undefined; user: { login: string } | null }) => hasMarker(c.body, marker) && byAuthor(author, c.user?.login);
    // Oldest first, stopping at the page that has it: naruto's comment comes right after the
    // command, so a long discussion costs one request, not one per hundred comments.
    const comments = await call(`list comments of #${issue}`, () =>
      octokit.paginate(octokit.rest.issues.listComments, { ...repo, issue_number: issue, per_page: 100 }, (response, done) => {
        if (response.data.some(matches)) done();
        return response.data;
      }),
    );
    const found = comments.find(matches);
    return found ? toComment(found) : null;
  };

  const findIssue = async (p: { marker: string; since: string; author?: Authors | undefined }): Promise<number | null> => {
    const matches = (i: { body?: string | null | undefined; user: { login: string } | null }) =>
      hasMarker(i.body, p.marker) && byAuthor(p.author, i.user?.login);
    const issues = await call(`look for an issue marked ${p.marker}`, () =>
      octokit.paginate(
        octokit.rest.issues.listForRepo,
        { ...repo, state: "all", since: p.since, sort: "created", direction: "desc", per_page: 100 },
        (response, done) => {
          if (response.data.some(matches)) done();
          return response.data;
        },
      ),
    );
    return issues.find(matches)?.number ?? null;
  };

  return {
    async listRecentComments({ since, limit = 300 }) {
      const found: RecentComment[] = [];
      // `since` filters by update time: a comment edited later shows up too, and is kept only
      // when it was created in the window.
      await call(`list the comments since ${since}`, () =>
        octokit.paginate(octokit.rest.issues.listCommentsForRepo, { ...repo, since, sort: "created", direction: "asc", per_page: 100 }, (response, done) => {
          for (const c of response.data) {
            if (found.length >= limit) break;
            if (Date.parse(c.created_at) < Date.parse(since)) continue;
            const issue = Number(/\/issues\/(\d+)$/.exec(c.issue_url)?.[1]);
            if (!Number.isInteger(issue)) continue;
            found.push({
              id: c.id,
              issue,
              body: c.body ?? "",
              user: c.user ? { login: c.user.login, id: c.user.id, type: c.user.type } : null,
              createdAt: c.created_at,
              eyes: c.reactions?.eyes ?? 0,
            });
          }
          if (found.length >= limit) done();
          return [];
        }),
      );
      return found;
    },
    async getIssue({ number }) {
      const data = await call(`read #${number}`, () => octokit.rest.issues.get({ ...repo, issue_number: number }).then((r) => r.data)).catch(nullOn404);
      if (data === null) return null;
      return {
        number: data.number,
        pullRequest: data.pull_request !== undefined && data.pull_request !== null,
        body: data.body ?? null,
        user: data.user ? { login: data.user.login, id: data.user.id, type: data.user.type } : null,
      };
    },
    async readFile({ path, ref }) {
      const operation = `read ${path}${ref ? ` at ${ref}` : ""}`;
      const data = await call(operation, () => octokit.rest.repos.getContent({ ...repo, path, ...(ref ? { ref } : {}) }).then((r) => r.data)).catch(nullOn404);
      if (data === null) return null;
      if (Array.isArray(data) || data.type !== "file")
        throw new GitHubError({ operation, status: null, message: "this is not a file (a directory, link or submodule): name a file" });
      // The contents API leaves out files over 1 MB (encoding "none"); the blob API has them.
      if ("encoding" in data && data.encoding === "none") {
        const blob = await call(operation, () => octokit.rest.git.getBlob({ ...repo, file_sha: data.sha }).then((r) => r.data));
        return Buffer.from(blob.content, blob.encoding === "base64" ? "base64" : "utf8").toString("utf8");
      }
      return Buffer.from("content" in data ? data.content : "", "base64").toString("utf8");
    },

    async addReaction({ target, content }) {
      // GitHub answers 200 for a reaction that exists already, so a repeat is harmless.
      if ("comment" in target) {
        await call(`react ${content} to comment ${target.comment}`, () =>
          octokit.rest.reactions.createForIssueComment({ ...repo, comment_id: target.comment, content }),
        );
      } else {
        await call(`react ${content} to #${target.issue}`, () => octokit.rest.reactions.createForIssue({ ...repo, issue_number: target.issue, content }));
      }
    },

    findComment,

    async upsertComment({ issue, marker, body, link, author }) {
      checkMarker(marker);
      const text = truncate(withMarker(body, marker), { limit: COMMENT_BODY_LIMIT, link });
      const existing = await findComment({ issue, marker, ...(author === undefined ? {} : { author }) });
      if (existing) {
        if (existing.body === text) return existing;
        return call(`update comment ${existing.id} on #${issue}`, () =>
          octokit.rest.issues.updateComment({ ...repo, comment_id: existing.id, body: text }).then((r) => toComment(r.data)),
        );
      }
      return ctx.createOnce({
        operation: `create comment on #${issue}`,
        create: () => octokit.rest.issues.createComment({ ...repo, issue_number: issue, body: text, request: ONCE }).then((r) => toComment(r.data)),
        check: () => findComment({ issue, marker, ...(author === undefined ? {} : { author }) }),
      });
    },

    async openIssue({ title, body, marker, since, author, link }) {
      checkMarker(marker);
      const existing = await findIssue({ marker, since, author });
      if (existing !== null) return { number: existing, created: false };
      const text = truncate(withMarker(body, marker), { limit: COMMENT_BODY_LIMIT, link });
      const number = await ctx.createOnce({
        operation: `open issue ${JSON.stringify(title.slice(0, 80))}`,
        create: () => octokit.rest.issues.create({ ...repo, title: title.slice(0, 256), body: text, request: ONCE }).then((r) => r.data.number),
        check: () => findIssue({ marker, since, author }),
      });
      return { number, created: true };
    },

    async permission({ user }) {
      const data = await call(`permission of ${user}`, () =>
        octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username: user }).then((r) => r.data),
      ).catch(nullOn404);
      if (data === null) return { role: "none", id: null };
      // `permission` folds maintain into write and triage into read; `role_name` keeps them.
      const role = (data as { role_name?: unknown }).role_name;
      const found = ROLES.find((r) => r === role) ?? ROLES.find((r) => r === data.permission);
      // The answer names the account the login belongs to now; without its id nothing can be trusted.
      const id = (data.user as { id?: unknown } | null)?.id;
      return typeof id === "number" ? { role: found ?? "none", id } : { role: "none", id: null };
    },
  };
}

function checkMarker(marker: string): void {
  if (!isMarker(marker)) throw new TypeError(`${JSON.stringify(marker)} is not a naruto marker: use markerFor(key)`);
}

function toComment(c: { id: number; body?: string | undefined; html_url: string; user: { login: string } | null }): Comment {
  return { id: c.id, body: c.body ?? "", url: c.html_url, author: c.user?.login ?? null };
}

/** For reads where "missing" is an answer: a 404 becomes null, anything else stays an error. */
export function nullOn404(error: unknown): null {
  if (error instanceof GitHubError && error.status === 404) return null;
  throw error;
}
