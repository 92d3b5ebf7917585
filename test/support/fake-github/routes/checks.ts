/** Check runs: only a GitHub App may write them, and only the app that created one may update it. */
import { GitHubError, notFound, unprocessable } from "../errors.ts";
import { ok, paginate, type Body, type RepoContext, type RepoRoute } from "../route.ts";
import { repoApi } from "../shapes.ts";
import { checkRunShape } from "../shapes-actions.ts";
import type { CheckRunState } from "../state.ts";

const WRITE = { role: "write", app: ["checks:write"] } as const;

function requireApp(ctx: RepoContext): void {
  if (ctx.principal.kind !== "installation") throw new GitHubError(403, "You must authenticate via a GitHub App.");
}

function time(value: unknown, fallback: number | null): number | null {
  return typeof value === "string" ? Date.parse(value) : fallback;
}

/** Applies status, conclusion, times and output from a create or update body. */
function apply(ctx: RepoContext, check: CheckRunState, body: Body): void {
  const now = ctx.world.now();
  if (typeof body["name"] === "string") check.name = body["name"];
  if (typeof body["external_id"] === "string") check.externalId = body["external_id"];
  if (typeof body["details_url"] === "string") check.detailsUrl = body["details_url"];
  if (typeof body["status"] === "string") check.status = body["status"] as CheckRunState["status"];
  if (typeof body["conclusion"] === "string") {
    // Giving a conclusion completes the check run, whatever the status said.
    check.conclusion = body["conclusion"];
    check.status = "completed";
  }
  if (check.status === "completed" && check.conclusion === null) {
    throw unprocessable('Invalid request.\n\n"conclusion" is required when "status" is "completed".');
  }
  check.startedAt = time(body["started_at"], check.startedAt ?? now);
  check.completedAt = check.status === "completed" ? time(body["completed_at"], check.completedAt ?? now) : null;
  const output = body["output"] as { title?: string; summary?: string; text?: string; annotations?: unknown[] } | undefined;
  if (output !== undefined) {
    check.output = {
      title: output.title ?? check.output.title,
      summary: output.summary ?? check.output.summary,
      text: output.text ?? check.output.text,
      annotationsCount: check.output.annotationsCount + (output.annotations?.length ?? 0),
    };
  }
}

export const checkRoutes: readonly RepoRoute[] = [
  {
    op: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
    access: { role: "read", app: ["checks:read"] } as const,
    handle: async (ctx) => {
      const ref = ctx.params["ref"] ?? "";
      const sha = await ctx.git.resolveCommit(ref);
      if (sha === null) throw unprocessable(`No commit found for SHA: ${ref}`);
      const q = ctx.query;
      let runs = [...ctx.repo.checkRuns.values()]
        .filter((c) => c.headSha === sha)
        .filter((c) => !q.has("check_name") || c.name === q.get("check_name"))
        .filter((c) => !q.has("status") || c.status === q.get("status"))
        .filter((c) => !q.has("app_id") || c.appId === Number(q.get("app_id")))
        .sort((a, b) => b.id - a.id);
      // `filter=latest` (the default) keeps the most recent check run of each name.
      if (q.get("filter") !== "all") runs = runs.filter((c, i) => runs.findIndex((d) => d.name === c.name) === i);
      const page = paginate({
        items: runs.map((c) => checkRunShape(ctx.urls, ctx.world, ctx.repo, c)),
        query: q,
        selfUrl: `${repoApi(ctx.urls, ctx.repo)}/commits/${encodeURIComponent(ref)}/check-runs`,
      });
      return { ...page, body: { total_count: runs.length, check_runs: page.body } };
    },
  },
  {
    op: "POST /repos/{owner}/{repo}/check-runs",
    access: WRITE,
    handle: async (ctx) => {
      requireApp(ctx);
      const headSha = String(ctx.body["head_sha"]);
      if ((await ctx.git.objectType(headSha)) !== "commit") throw unprocessable(`No commit found for SHA: ${headSha}`);
      const check: CheckRunState = {
        id: ctx.world.nextId(),
        name: String(ctx.body["name"]),
        headSha,
        status: "queued",
        conclusion: null,
        externalId: null,
        detailsUrl: null,
        startedAt: null,
        completedAt: null,
        output: { title: null, summary: null, text: null, annotationsCount: 0 },
        appId: ctx.world.app.id,
      };
      apply(ctx, check, ctx.body);
      ctx.repo.checkRuns.set(check.id, check);
      return {
        status: 201,
        body: checkRunShape(ctx.urls, ctx.world, ctx.repo, check),
        headers: { location: `${repoApi(ctx.urls, ctx.repo)}/check-runs/${check.id}` },
      };
    },
  },
  {
    op: "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
    access: WRITE,
    handle: (ctx) => {
      requireApp(ctx);
      const check = ctx.repo.checkRuns.get(Number(ctx.params["check_run_id"]));
      if (check === undefined) throw notFound();
      const draft = { ...check, output: { ...check.output } };
      apply(ctx, draft, ctx.body);
      Object.assign(check, draft);
      return ok(checkRunShape(ctx.urls, ctx.world, ctx.repo, check));
    },
  },
];
