/** The endpoints a GitHub App calls with its JWT: itself, finding its installation, and exchanging the JWT for an installation token. */
import { issueInstallationToken } from "../app-auth.ts";
import { GitHubError, notFound } from "../errors.ts";
import { ok, type SelfRoute } from "../route.ts";
import { APP_CREATED, APP_EVENTS, appShape, repositoryShape, userShape } from "../shapes.ts";
import { findRepo, isoTime, type AppPermissions } from "../state.ts";

export const appRoutes: readonly SelfRoute[] = [
  {
    // The app itself (its slug names its bot, `<slug>[bot]`); only the app's JWT may ask.
    op: "GET /app",
    access: "self",
    handle: (ctx) => {
      if (ctx.principal.kind !== "app") {
        throw new GitHubError(401, "A JSON web token could not be decoded");
      }
      return ok({
        ...appShape(ctx.urls, ctx.world),
        installations_count: ctx.world.installations.size,
      });
    },
  },
  {
    op: "GET /repos/{owner}/{repo}/installation",
    access: "self",
    handle: (ctx) => {
      if (ctx.principal.kind !== "app") {
        throw new GitHubError(401, "A JSON web token could not be decoded");
      }
      const repo = findRepo(ctx.world, ctx.params["owner"] ?? "", ctx.params["repo"] ?? "");
      const installation = [...ctx.world.installations.values()].find(
        (i) => repo !== undefined && i.account.login.toLowerCase() === repo.owner.login.toLowerCase(),
      );
      if (repo === undefined || installation === undefined) throw notFound();
      return ok({
        id: installation.id,
        account: userShape(ctx.urls, installation.account),
        app_id: ctx.world.app.id,
        app_slug: ctx.world.app.slug,
        target_id: installation.account.id,
        target_type: installation.account.type,
        repository_selection: "all",
        permissions: installation.permissions,
        events: [...APP_EVENTS],
        created_at: APP_CREATED,
        updated_at: APP_CREATED,
        single_file_name: null,
        suspended_by: null,
        suspended_at: null,
        access_tokens_url: `${ctx.urls.api}/app/installations/${installation.id}/access_tokens`,
        repositories_url: `${ctx.urls.api}/installation/repositories`,
        html_url: `${ctx.urls.web}/organizations/${installation.account.login}/settings/installations/${installation.id}`,
      });
    },
  },
  {
    op: "POST /app/installations/{installation_id}/access_tokens",
    access: "self",
    handle: (ctx) => {
      if (ctx.principal.kind !== "app") {
        throw new GitHubError(401, "A JSON web token could not be decoded");
      }
      const installationId = Number(ctx.params["installation_id"]);
      const installation = ctx.world.installations.get(installationId);
      const byId = ctx.body["repository_ids"] as number[] | undefined;
      const names = [
        ...((ctx.body["repositories"] as string[] | undefined) ?? []),
        ...[...ctx.world.repos.values()].filter((r) => byId?.includes(r.id) === true).map((r) => r.name),
      ];
      if (byId !== undefined && names.length < byId.length) {
        throw new GitHubError(422, "There is at least one repository that does not exist or is not accessible to the parent installation.");
      }
      const issued = issueInstallationToken(ctx.world, {
        installationId,
        ...(ctx.body["permissions"] !== undefined ? { permissions: ctx.body["permissions"] as AppPermissions } : {}),
        ...(names.length > 0 ? { repositories: names } : {}),
      });
      const owner = installation?.account.login ?? "";
      return {
        status: 201,
        body: {
          token: issued.token,
          expires_at: isoTime(issued.expiresAt),
          permissions: issued.permissions,
          repository_selection: issued.repositories === null ? "all" : "selected",
          ...(issued.repositories === null
            ? {}
            : {
                repositories: issued.repositories
                  .map((n) => findRepo(ctx.world, owner, n))
                  .flatMap((r) => (r === undefined ? [] : [repositoryShape(ctx.urls, r)])),
              }),
        },
      };
    },
  },
];
