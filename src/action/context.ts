/**
 * What the runner tells a JavaScript action about its job, read from the environment the entry
 * point passes in (https://docs.github.com/actions/reference/variables-reference).
 */
import { basename } from "node:path";
import { tmpdir } from "node:os";

export interface ActionContext {
  readonly repo: { readonly owner: string; readonly repo: string };
  readonly fullName: string;
  /** `https://github.com`, or a GitHub Enterprise Server's (or the fake's) address. */
  readonly serverUrl: string;
  /** `https://api.github.com`, or `<server>/api/v3`. */
  readonly apiUrl: string;
  readonly eventName: string;
  readonly eventPath: string | null;
  /** The checkout (`GITHUB_WORKSPACE`). */
  readonly workspace: string;
  /** A job-private temporary folder (`RUNNER_TEMP`), outside the checkout. */
  readonly tempDir: string;
  /** This run's id (`GITHUB_RUN_ID`). */
  readonly runId: number | null;
  /** This run's attempt (`GITHUB_RUN_ATTEMPT`: re-runs count up from 1). */
  readonly runAttempt: number;
  /** This run's page. */
  readonly runUrl: string | null;
  /** The workflow file of this run (`naruto.yml`): the one naruto dispatches. */
  readonly workflow: string;
  /** The ref this run is on: dispatches go to the same (default) branch. */
  readonly ref: string;
}

/** Thrown when the runner did not give what a mode needs. */
export class ActionContextError extends Error {
  override readonly name = "ActionContextError";
}

export function actionContext(env: Readonly<Record<string, string | undefined>>, cwd: string): ActionContext {
  const fullName = env["GITHUB_REPOSITORY"] ?? "";
  const [owner, repo] = fullName.split("/");
  if (!owner || !repo) throw new ActionContextError("GITHUB_REPOSITORY is not set (owner/name): run naruto as a step of a GitHub Actions job");
  const serverUrl = (env["GITHUB_SERVER_URL"] || "https://github.com").replace(/\/+$/, "");
  const runId = env["GITHUB_RUN_ID"];
  // GITHUB_WORKFLOW_REF: owner/repo/.github/workflows/naruto.yml@refs/heads/main
  const workflowRef = env["GITHUB_WORKFLOW_REF"] ?? "";
  const workflowPath = workflowRef.includes("@") ? workflowRef.slice(0, workflowRef.lastIndexOf("@")) : "";
  return {
    repo: { owner, repo },
    fullName,
    serverUrl,
    apiUrl: (env["GITHUB_API_URL"] || "https://api.github.com").replace(/\/+$/, ""),
    eventName: env["GITHUB_EVENT_NAME"] ?? "",
    eventPath: env["GITHUB_EVENT_PATH"] || null,
    workspace: env["GITHUB_WORKSPACE"] || cwd,
    tempDir: env["RUNNER_TEMP"] || tmpdir(),
    runId: runId && /^[1-9][0-9]{0,15}$/.test(runId) ? Number(runId) : null,
    runAttempt: /^[1-9][0-9]{0,5}$/.test(env["GITHUB_RUN_ATTEMPT"] ?? "") ? Number(env["GITHUB_RUN_ATTEMPT"]) : 1,
    runUrl: runId ? `${serverUrl}/${fullName}/actions/runs/${runId}` : null,
    workflow: workflowPath ? basename(workflowPath) : "naruto.yml",
    ref: env["GITHUB_REF_NAME"] || "main",
  };
}
