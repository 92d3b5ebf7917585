/** A repository's Actions secrets (names), variables and workflow permissions (actions-settings.ts). */
import { actionsSettings, orgActionsSettings } from "../actions-settings.ts";
import { ok, type RepoContext, type RepoRoute } from "../route.ts";
import { isoTime } from "../state.ts";

type Named = { name: string };

/** GitHub's `{ total_count, <key>: [...] }` page of a settings list, sorted by name. */
function page<T extends Named>(ctx: RepoContext, key: string, items: T[]) {
  const perPage = Math.min(Math.max(Number(ctx.query.get("per_page") ?? 30) || 30, 1), 100);
  const number = Math.max(Number(ctx.query.get("page") ?? 1) || 1, 1);
  const sorted = items.sort((a, b) => a.name.localeCompare(b.name));
  return ok({ total_count: sorted.length, [key]: sorted.slice((number - 1) * perPage, number * perPage) });
}

const secretsOf = (map: Map<string, number>) => [...map].map(([name, at]) => ({ name, created_at: isoTime(at), updated_at: isoTime(at) }));
const variablesOf = (map: Map<string, { value: string; at: number }>) =>
  [...map].map(([name, v]) => ({ name, value: v.value, created_at: isoTime(v.at), updated_at: isoTime(v.at) }));

export const actionsSettingsRoutes: readonly RepoRoute[] = [
  {
    op: "GET /repos/{owner}/{repo}/actions/secrets",
    access: { role: "admin", app: ["secrets:read"] } as const,
    handle: (ctx) => page(ctx, "secrets", secretsOf(actionsSettings(ctx.repo).secrets)),
  },
  {
    op: "GET /repos/{owner}/{repo}/actions/organization-secrets",
    access: { role: "admin", app: ["secrets:read"] } as const,
    handle: (ctx) => page(ctx, "secrets", secretsOf(orgActionsSettings(ctx.world, ctx.repo.owner.login).secrets)),
  },
  {
    op: "GET /repos/{owner}/{repo}/actions/variables",
    access: { role: "admin", app: ["actions_variables:read"] } as const,
    handle: (ctx) => page(ctx, "variables", variablesOf(actionsSettings(ctx.repo).variables)),
  },
  {
    op: "GET /repos/{owner}/{repo}/actions/organization-variables",
    access: { role: "admin", app: ["actions_variables:read"] } as const,
    handle: (ctx) => page(ctx, "variables", variablesOf(orgActionsSettings(ctx.world, ctx.repo.owner.login).variables)),
  },
  {
    op: "GET /repos/{owner}/{repo}/actions/permissions/workflow",
    access: { role: "admin", app: ["administration:read"] } as const,
    handle: (ctx) => {
      const settings = actionsSettings(ctx.repo);
      return ok({ default_workflow_permissions: settings.defaultWorkflowPermissions, can_approve_pull_request_reviews: settings.canApprovePullRequestReviews });
    },
  },
];
