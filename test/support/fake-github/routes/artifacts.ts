/**
 * Workflow run artifacts over REST: the list of a run's artifacts (by name too) and the download,
 * which answers 302 to a signed blob link as GitHub does (the zip itself is not an API call). Both
 * need `actions: read` from an installation token. Uploads come through the results service
 * (results-service.ts), never through REST.
 */
import { GitHubError, notFound } from "../errors.ts";
import { paginate, type RepoContext, type RepoRoute } from "../route.ts";
import { repoApi } from "../shapes.ts";
import { artifactsOfRun, type ArtifactState } from "../artifacts.ts";
import { isoTime } from "../state.ts";

function artifactShape(ctx: RepoContext, a: ArtifactState): Record<string, unknown> {
  const api = `${repoApi(ctx.urls, ctx.repo)}/actions/artifacts/${a.id}`;
  const run = ctx.repo.runs.get(a.runId);
  return {
    id: a.id,
    node_id: Buffer.from(`MDg6QXJ0aWZhY3Q${a.id}`).toString("base64"),
    name: a.name,
    size_in_bytes: a.zip.length,
    url: api,
    archive_download_url: `${api}/zip`,
    expired: ctx.world.now() >= a.expiresAt,
    created_at: isoTime(a.createdAt),
    expires_at: isoTime(a.expiresAt),
    updated_at: isoTime(a.createdAt),
    digest: a.digest,
    workflow_run: {
      id: a.runId,
      repository_id: ctx.repo.id,
      head_repository_id: ctx.repo.id,
      head_branch: run?.headBranch ?? ctx.repo.defaultBranch,
      head_sha: run?.headSha ?? "0".repeat(40),
    },
  };
}

export const artifactRoutes: readonly RepoRoute[] = [
  {
    op: "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
    access: { role: "read", app: ["actions:read"] } as const,
    handle: (ctx) => {
      const runId = Number(ctx.params["run_id"]);
      if (!ctx.repo.runs.has(runId)) throw notFound();
      const name = ctx.query.get("name");
      const all = artifactsOfRun(ctx.repo, runId).filter((a) => name === null || a.name === name);
      // Newest first unless asked otherwise (GitHub's default `direction` is desc).
      const ordered = ctx.query.get("direction") === "asc" ? all : [...all].reverse();
      const page = paginate({
        items: ordered.map((a) => artifactShape(ctx, a)),
        query: ctx.query,
        selfUrl: `${repoApi(ctx.urls, ctx.repo)}/actions/runs/${runId}/artifacts`,
      });
      return { ...page, body: { total_count: all.length, artifacts: page.body } };
    },
  },
  {
    op: "GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}",
    access: { role: "read", app: ["actions:read"] } as const,
    handle: (ctx) => {
      if (ctx.params["archive_format"] !== "zip") throw notFound();
      const artifact = ctx.repo.artifacts.get(Number(ctx.params["artifact_id"]));
      if (artifact === undefined) throw notFound();
      if (ctx.world.now() >= artifact.expiresAt) throw new GitHubError(410, "Artifact has expired");
      return { status: 302, headers: { location: `${ctx.urls.web}/_blobs/${ctx.world.blobs.sign(ctx.repo, artifact)}` } };
    },
  },
];
