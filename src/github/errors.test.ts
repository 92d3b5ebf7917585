import { describe, expect, it } from "vitest";
import {
  ConflictError,
  GitHubError,
  GitHubTimeoutError,
  InputLimitError,
  NotFastForwardError,
  PullRequestExistsError,
  RefExistsError,
  RefMissingError,
  TokenUnavailableError,
  toGitHubError,
  WorkflowPermissionError,
} from "./errors.ts";

/** The shape of Octokit's RequestError for an answer with a JSON body. */
function answer(status: number, message: string, errors?: unknown[]): Error & { status: number; response: { data: unknown } } {
  return Object.assign(new Error(message), {
    status,
    response: { data: { message, ...(errors ? { errors } : {}), documentation_url: "https://docs.github.com" } },
  });
}

describe("toGitHubError", () => {
  it.each([
    ["Update is not a fast forward", NotFastForwardError],
    ["Reference already exists", RefExistsError],
    ["Reference does not exist", RefMissingError],
    ["Validation Failed", PullRequestExistsError, [{ resource: "PullRequest", code: "custom", message: "A pull request already exists for acme:naruto/m-1." }]],
  ] as const)("maps GitHub's documented 422 %j to its class", (message, Class, errors?: readonly unknown[]) => {
    const e = toGitHubError("op", answer(422, message, errors ? [...errors] : undefined));
    expect(e).toBeInstanceOf(Class);
    expect(e).toMatchObject({ status: 422, operation: "op" });
  });

  it("keeps any other 422 a plain GitHubError with GitHub's words", () => {
    const e = toGitHubError("create comment on #1", answer(422, "Validation Failed", [{ message: "body is too long" }]));
    expect(e.constructor).toBe(GitHubError);
    expect(e.message).toContain("create comment on #1: Validation Failed; body is too long");
  });

  it("maps 409 to ConflictError", () => {
    expect(toGitHubError("merge", answer(409, "Merge conflict"))).toBeInstanceOf(ConflictError);
  });

  it.each([
    [401, /refresh the installation token/],
    [403, /permission/],
    [404, /cannot see it/],
    [502, /try again later/],
  ])("says what to do next for a %i", (status, advice) => {
    const e = toGitHubError("read x", answer(status, "nope"));
    expect(e).toMatchObject({ status });
    expect(e.message).toMatch(advice);
  });

  it("recognises a timeout by the TimeoutError that fetch rejected with", () => {
    const cause = Object.assign(new Error("The operation was aborted due to timeout"), { name: "TimeoutError" });
    const e = toGitHubError("read x", Object.assign(new Error("The operation was aborted due to timeout"), { status: 500, cause }));
    expect(e).toBeInstanceOf(GitHubTimeoutError);
    expect(e).toMatchObject({ status: null });
  });

  it("maps GitHub's 403 for workflow files to WorkflowPermissionError naming the file", () => {
    const e = toGitHubError(
      "create refs/heads/naruto/m-1",
      answer(403, "refusing to allow a GitHub App to create or update workflow `.github/workflows/x.yml` without `workflows` permission"),
    );
    expect(e).toBeInstanceOf(WorkflowPermissionError);
    expect(e).toMatchObject({ status: 403, path: ".github/workflows/x.yml", operation: "create refs/heads/naruto/m-1" });
    expect(toGitHubError("op", answer(403, "Resource not accessible by integration"))).not.toBeInstanceOf(WorkflowPermissionError);
  });

  it("passes typed errors through unchanged", () => {
    const limit = new InputLimitError("too many");
    expect(toGitHubError("op", limit)).toBe(limit);
    const token = new TokenUnavailableError({ cause: answer(404, "Not Found"), request: {} });
    expect(toGitHubError("op", token)).toBe(token);
  });

  it.each([
    [404, /uninstalled or suspended/],
    [502, /GitHub failed; comment again later/],
  ])("says why a token request that answered %i gave no token, and what to do", (status, advice) => {
    const e = new TokenUnavailableError({ cause: answer(status, "nope") });
    expect(e).toMatchObject({ name: "TokenUnavailableError", tokenStatus: status });
    expect(e).not.toBeInstanceOf(GitHubError);
    expect(e.message).toMatch(advice);
  });
});
