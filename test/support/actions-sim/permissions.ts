/**
 * A job's `permissions:` → the permissions of the `GITHUB_TOKEN` it gets, in the GitHub App
 * permission names the fake GitHub checks (`pull-requests` → `pull_requests`). The job's own
 * block wins over the workflow's; with neither, the repository default applies.
 */
import { DEFAULT_APP_PERMISSIONS } from "../fake-github/world.ts";
import type { AppPermissions, PermissionLevel } from "../fake-github/state.ts";

/** A `permissions:` block: `read-all`, `write-all`, or a level per scope. */
export type PermissionsSpec = "read-all" | "write-all" | Readonly<Record<string, "read" | "write" | "none">>;

/** A `permissions:` value GitHub's workflow schema accepted, typed (the schema checked the names and levels). */
export function readPermissions(value: unknown): PermissionsSpec {
  if (value === "read-all" || value === "write-all") return value;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new TypeError(`permissions: ${JSON.stringify(value)} is neither read-all, write-all nor a mapping`);
  const levels = Object.entries(value).map(([scope, level]): [string, "read" | "write" | "none"] => {
    if (level !== "read" && level !== "write" && level !== "none")
      throw new TypeError(`permissions.${scope}: ${JSON.stringify(level)} is not read, write or none`);
    return [scope, level];
  });
  return Object.fromEntries(levels);
}

/** Scopes a workflow may name, as GitHub documents them. */
const WORKFLOW_SCOPES = [
  "actions",
  "attestations",
  "checks",
  "contents",
  "deployments",
  "discussions",
  "id-token",
  "issues",
  "models",
  "packages",
  "pages",
  "pull-requests",
  "repository-projects",
  "security-events",
  "statuses",
] as const;

/**
 * The repository setting "Workflow permissions": `restricted` (read contents and packages, the
 * default for new repositories since 2023) or `permissive` (read and write on every scope).
 */
export type DefaultPermissions = "restricted" | "permissive";

/** Scopes the fake GitHub models; asking it for others would be refused (422). */
const FAKE_SCOPES = new Set(Object.keys(DEFAULT_APP_PERMISSIONS));

export function tokenPermissions(input: {
  readonly job: PermissionsSpec | undefined;
  readonly workflow: PermissionsSpec | undefined;
  readonly fallback: DefaultPermissions;
}): AppPermissions {
  const spec: PermissionsSpec = input.job ?? input.workflow ?? (input.fallback === "restricted" ? { contents: "read", packages: "read" } : "write-all");
  const entries: [string, PermissionLevel | "none"][] =
    typeof spec === "string" ? WORKFLOW_SCOPES.map((s) => [s, spec === "read-all" ? "read" : "write"]) : Object.entries(spec);
  const out: Record<string, PermissionLevel> = { metadata: "read" };
  for (const [scope, level] of entries) {
    const name = scope.replaceAll("-", "_");
    // `id-token` grants an OIDC token, not API access; the fake models neither it nor packages.
    if (level === "none" || !FAKE_SCOPES.has(name)) continue;
    out[name] = level;
  }
  return out;
}
