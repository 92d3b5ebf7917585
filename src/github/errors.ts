/**
 * Typed errors of the GitHub port. Callers branch on the class, never on message text; the one
 * place that reads GitHub's message text is {@link toGitHubError}, which maps the documented
 * 422 answers (not a fast forward, reference exists/missing, pull request exists), the 403
 * for workflow files and the refusal of `return_run_details` by older servers to classes.
 */

export interface GitHubErrorInit {
  /** What naruto was doing, e.g. `update ref refs/heads/naruto/m-1`. */
  readonly operation: string;
  /** The HTTP status, or null when GitHub gave no answer (timeout, network). */
  readonly status: number | null;
  readonly message: string;
  readonly cause?: unknown;
}

/** GitHub refused or failed a request; the message says what to do next. */
export class GitHubError extends Error {
  override readonly name: string = "GitHubError";
  readonly operation: string;
  readonly status: number | null;

  constructor(init: GitHubErrorInit) {
    super(`${init.operation}: ${init.message}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.operation = init.operation;
    this.status = init.status;
  }
}

/** 422 "Update is not a fast forward": the ref moved since it was read. Reload and re-apply. */
export class NotFastForwardError extends GitHubError {
  override readonly name = "NotFastForwardError";
}

/** 409: the repository is not in the state the request assumed (merge conflict, finished run). */
export class ConflictError extends GitHubError {
  override readonly name = "ConflictError";
}

/** 422 "Reference already exists": another writer created the ref first. */
export class RefExistsError extends GitHubError {
  override readonly name = "RefExistsError";
}

/** 422 "Reference does not exist" on an update or delete. */
export class RefMissingError extends GitHubError {
  override readonly name = "RefMissingError";
}

/** 422 "A pull request already exists" for this head and base. */
export class PullRequestExistsError extends GitHubError {
  override readonly name = "PullRequestExistsError";
}

/**
 * 403 "refusing to allow a GitHub App to create or update workflow `…` without `workflows`
 * permission": the ref would differ under `.github/workflows/` from its old commit (for a new
 * ref, from the default branch's head) and the token has no `workflows` permission. naruto's
 * App never asks for it (app.yml) and a job's `GITHUB_TOKEN` cannot have it. `path` is the
 * workflow file GitHub named.
 */
export class WorkflowPermissionError extends GitHubError {
  override readonly name = "WorkflowPermissionError";
  readonly path: string;

  constructor(init: GitHubErrorInit & { readonly path: string }) {
    super(init);
    this.path = init.path;
  }
}

/**
 * 400 or 422 naming `return_run_details`: the server does not know the dispatch field that asks
 * for the run's id (GitHub Enterprise Server 3.20 and older; github.com has it since 2026-02-19).
 * Nothing was dispatched: the same dispatch without the field is safe to send.
 */
export class RunDetailsUnsupportedError extends GitHubError {
  override readonly name = "RunDetailsUnsupportedError";
}

/**
 * No token for the request: asking GitHub for one failed (the App's installation-token request
 * answered 404 because the App was uninstalled, suspended or the repository left the
 * installation, or GitHub failed). The request itself was never sent, so this is no answer about
 * the repository: never read it as "not found", "no such file" or "no permission".
 */
export class TokenUnavailableError extends Error {
  override readonly name = "TokenUnavailableError";
  /** The HTTP status of the failed token request; null when it got no answer. */
  readonly tokenStatus: number | null;
  /** The request that waited for the token (plugin-retry's scheduler reads it; see octokit-client.ts). */
  readonly request: unknown;

  constructor(init: { readonly cause: unknown; readonly request?: unknown }) {
    const status = (init.cause as { status?: unknown } | null)?.status;
    const tokenStatus = typeof status === "number" ? status : null;
    super(tokenAdvice(tokenStatus), { cause: init.cause });
    this.tokenStatus = tokenStatus;
    this.request = init.request;
  }
}

function tokenAdvice(status: number | null): string {
  const what = `GitHub gave no token for the request (${status === null ? "no answer" : `HTTP ${status}`} to the token request)`;
  if (status === 401 || status === 403 || status === 404) {
    return `${what}: the App was uninstalled or suspended, or the repository is no longer in its installation; reinstall the App or add the repository, then comment again`;
  }
  return `${what}: GitHub failed; comment again later`;
}

/** GitHub did not answer within the request timeout (after the retries allowed). */
export class GitHubTimeoutError extends GitHubError {
  override readonly name = "GitHubTimeoutError";
}

/**
 * A request that creates something failed without a clear answer (5xx, timeout) and checking
 * whether it took effect did not settle it. Nothing was retried blindly.
 */
export class OutcomeUnknownError extends GitHubError {
  override readonly name = "OutcomeUnknownError";
}

/** One entry of a GraphQL answer's `errors`: `type` is GitHub's (`NOT_FOUND`, `FORBIDDEN`, …), null for a validation error. */
export interface GraphqlErrorEntry {
  readonly type: string | null;
  readonly message: string;
  readonly path: readonly (string | number)[];
}

/**
 * GitHub answered a GraphQL query with `errors` (HTTP 200): a validation error (the query asks
 * for something the schema does not have), or a field it could not resolve. `errors` lists
 * them; `has(type)` says whether one is of GitHub's `type`.
 */
export class GraphqlError extends GitHubError {
  override readonly name = "GraphqlError";
  readonly errors: readonly GraphqlErrorEntry[];

  constructor(init: GitHubErrorInit & { readonly errors: readonly GraphqlErrorEntry[] }) {
    super(init);
    this.errors = init.errors;
  }

  has(type: string): boolean {
    return this.errors.some((e) => e.type === type);
  }
}

/** The caller sent more than GitHub accepts; refused before sending. Fix the caller. */
export class InputLimitError extends Error {
  override readonly name = "InputLimitError";
}

/** The shape of Octokit's `RequestError` that we read (status and response headers). */
interface RequestErrorLike {
  readonly status?: unknown;
  readonly message?: unknown;
  readonly response?: { readonly data?: unknown };
  readonly cause?: unknown;
}

// GitHub's documented 422 answers, matched in this one place (see the module comment).
const KNOWN_422: ReadonlyArray<readonly [RegExp, new (init: GitHubErrorInit) => GitHubError, string]> = [
  [/not a fast.forward/i, NotFastForwardError, "the ref moved since it was read: reload, re-apply and try again"],
  [/reference already exists/i, RefExistsError, "the ref exists already: read it instead of creating it"],
  [/reference does not exist/i, RefMissingError, "the ref does not exist: create it first"],
  [/pull request already exists/i, PullRequestExistsError, "a pull request for this head exists: find and update it"],
];

// GitHub's answer when a ref would change a workflow file without the `workflows` permission
// (the same words after a push's `remote rejected`); the file it names is the first one found.
const WORKFLOW_REFUSAL = /refusing to allow a GitHub App to create or update workflow `([^`]+)` without `workflows` permission/i;

/**
 * The workflow file GitHub named when it refused a ref for workflow files, or null: the words of
 * {@link WorkflowPermissionError}, which a `git push` meets after `[remote rejected]`. The one
 * place besides {@link toGitHubError} that reads them, for the pushes naruto makes with git.
 */
export function workflowRefusedPath(text: string): string | null {
  return WORKFLOW_REFUSAL.exec(text)?.[1] ?? null;
}

// An older server's refusal of the dispatch field it does not know ("return_run_details" is not a
// permitted key), as 400 or as a 422 validation error.
const RUN_DETAILS = /\breturn_run_details\b/;

/** Maps any error thrown by an Octokit call to a typed {@link GitHubError}. */
export function toGitHubError(operation: string, error: unknown): Error {
  if (error instanceof GitHubError || error instanceof InputLimitError || error instanceof TokenUnavailableError) return error;
  if (typeof error !== "object" || error === null) return new GitHubError({ operation, status: null, message: String(error) });
  const e = error as RequestErrorLike;
  const graphql = graphqlErrors(error);
  if (graphql !== null) return graphqlError(operation, graphql, error);
  const status = typeof e.status === "number" ? e.status : null;
  const detail = githubMessage(e);
  if (isTimeout(e)) {
    return new GitHubTimeoutError({
      operation,
      status: null,
      message: "GitHub did not answer in time; try again later or raise requestTimeoutMs",
      cause: error,
    });
  }
  if (status === 422) {
    for (const [pattern, Class, advice] of KNOWN_422) {
      if (pattern.test(detail)) return new Class({ operation, status, message: `${detail} (${advice})`, cause: error });
    }
  }
  const workflow = status === 403 ? WORKFLOW_REFUSAL.exec(detail)?.[1] : undefined;
  if (workflow !== undefined) {
    const advice = "the App has no `workflows` permission, by design: leave workflow changes out of what naruto works on";
    return new WorkflowPermissionError({ operation, status, message: `${detail} (${advice})`, cause: error, path: workflow });
  }
  if ((status === 400 || status === 422) && RUN_DETAILS.test(detail)) {
    return new RunDetailsUnsupportedError({
      operation,
      status,
      message: `${detail} (this server does not return a dispatched run's id: dispatch without return_run_details)`,
      cause: error,
    });
  }
  if (status === 409)
    return new ConflictError({ operation, status, message: `${detail} (409 conflict: read the current state and decide again)`, cause: error });
  return new GitHubError({ operation, status, message: `${detail} (${advise(status)})`, cause: error });
}

function advise(status: number | null): string {
  if (status === null) return "no answer from GitHub: check the network and baseUrl, then try again";
  if (status === 401) return "the token is invalid or expired: refresh the installation token";
  if (status === 403) return "the token lacks a permission for this, or a rate limit still holds after waiting: check the App's permissions";
  if (status === 404) return "not found, or the token cannot see it: check the repository, the name and the token's access";
  if (status === 422) return "GitHub rejected the request as invalid: check the values sent";
  if (status >= 500) return "GitHub failed after the retries allowed: try again later";
  return `HTTP ${status}`;
}

function githubMessage(e: RequestErrorLike): string {
  const data = e.response?.data;
  if (typeof data === "object" && data !== null && "message" in data && typeof data.message === "string") {
    const errors =
      "errors" in data && Array.isArray(data.errors)
        ? data.errors.map((x) => (typeof x === "object" && x !== null && "message" in x ? String(x.message) : JSON.stringify(x)))
        : [];
    return [data.message, ...errors].join("; ");
  }
  return typeof e.message === "string" ? e.message : "unknown error";
}

// fetch rejects with a DOMException named "TimeoutError" when AbortSignal.timeout fires;
// @octokit/request wraps it in a RequestError whose cause it is.
function isTimeout(e: RequestErrorLike): boolean {
  for (let c: unknown = e, depth = 0; typeof c === "object" && c !== null && depth < 4; c = (c as { cause?: unknown }).cause, depth++) {
    if ((c as { name?: unknown }).name === "TimeoutError") return true;
  }
  return false;
}

/** The `errors` of @octokit/graphql's `GraphqlResponseError` (a 200 answer with errors); null for anything else. */
function graphqlErrors(error: object): GraphqlErrorEntry[] | null {
  if (!("name" in error) || error.name !== "GraphqlResponseError" || !("errors" in error) || !Array.isArray(error.errors)) return null;
  return error.errors.map((x: unknown): GraphqlErrorEntry => {
    const o = (typeof x === "object" && x !== null ? x : {}) as Record<string, unknown>;
    return {
      type: typeof o["type"] === "string" ? o["type"] : null,
      message: typeof o["message"] === "string" ? o["message"] : JSON.stringify(x),
      path: Array.isArray(o["path"]) ? o["path"].filter((p): p is string | number => typeof p === "string" || typeof p === "number") : [],
    };
  });
}

function graphqlError(operation: string, errors: readonly GraphqlErrorEntry[], cause: unknown): GraphqlError {
  const types = new Set(errors.map((e) => e.type));
  const advice = types.has("NOT_FOUND")
    ? "not found, or the token cannot see it: check the repository, the number and the token's access"
    : types.has("FORBIDDEN")
      ? "the token lacks a permission for this: an App or job token needs pull_requests: read"
      : types.has(null)
        ? "GitHub rejected the query: naruto's query does not match GitHub's schema; report it as a naruto bug"
        : "GitHub could not answer the query: try again later";
  const what = errors.map((e) => (e.type ? `${e.type}: ${e.message}` : e.message)).join("; ");
  return new GraphqlError({ operation, status: 200, message: `${what} (${advice})`, cause, errors });
}
