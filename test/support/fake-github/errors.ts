/**
 * GitHub's error answers: `{ message, documentation_url, status }` (status as a string, as
 * GitHub sends it), plus `errors` for 422 "Validation Failed".
 */

export const DOCS_URL = "https://docs.github.com/rest";

export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface FieldError {
  readonly resource: string;
  readonly code: "missing" | "missing_field" | "invalid" | "already_exists" | "unprocessable" | "custom";
  readonly field?: string;
  readonly message?: string;
}

/** Thrown by routes; the server turns it into GitHub's error body. */
export class GitHubError extends Error {
  override readonly name = "GitHubError";
  readonly status: number;
  readonly extra: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, message: string, options: { extra?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
    super(message);
    this.status = status;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  toReply(): Reply {
    return {
      status: this.status,
      body: { message: this.message, ...this.extra, documentation_url: DOCS_URL, status: String(this.status) },
      headers: this.headers,
    };
  }
}

export const notFound = (message = "Not Found"): GitHubError => new GitHubError(404, message);

export const badCredentials = (): GitHubError => new GitHubError(401, "Bad credentials");

export const notAccessibleByIntegration = (): GitHubError => new GitHubError(403, "Resource not accessible by integration");

/** A 422 with the `errors` list GitHub gives for field-level problems. */
export function validationFailed(errors: readonly FieldError[]): GitHubError {
  return new GitHubError(422, "Validation Failed", { extra: { errors } });
}

/** A 422 whose message alone says what is wrong (e.g. "Reference already exists"). */
export const unprocessable = (message: string): GitHubError => new GitHubError(422, message);
