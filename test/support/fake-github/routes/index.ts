/** Every REST route of the fake, by the OpenAPI operation (`METHOD template`) it serves. */
import { operationKey, OPERATIONS } from "../openapi.ts";
import type { Route } from "../route.ts";
import { actionRoutes } from "./actions.ts";
import { actionsSettingsRoutes } from "./actions-settings.ts";
import { appRoutes } from "./app.ts";
import { artifactRoutes } from "./artifacts.ts";
import { checkRoutes } from "./checks.ts";
import { compareRoutes } from "./compare.ts";
import { gitObjectRoutes } from "./git-objects.ts";
import { gitRefRoutes } from "./git-refs.ts";
import { issueRoutes } from "./issues.ts";
import { pullRoutes } from "./pulls.ts";
import { repoRoutes } from "./repos.ts";

const ALL: readonly Route[] = [
  ...repoRoutes,
  ...issueRoutes,
  ...actionRoutes,
  ...actionsSettingsRoutes,
  ...artifactRoutes,
  ...pullRoutes,
  ...compareRoutes,
  ...checkRoutes,
  ...gitRefRoutes,
  ...gitObjectRoutes,
  ...appRoutes,
];

export const ROUTES: ReadonlyMap<string, Route> = new Map(ALL.map((r) => [r.op, r]));

/** Operations in the OpenAPI subset without a route, and routes for operations not in it. */
export function routeCoverage(): { unrouted: string[]; undocumented: string[] } {
  const documented = new Set(OPERATIONS.map(operationKey));
  return {
    unrouted: [...documented].filter((op) => !ROUTES.has(op)),
    undocumented: [...ROUTES.keys()].filter((op) => !documented.has(op)),
  };
}
