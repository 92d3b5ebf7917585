/**
 * The fake's App has exactly the permissions naruto's manifest (`app.yml`, `default_permissions`)
 * asks for: read from that file, never copied into a second list, so that a test can only pass
 * with what a real installation of naruto would grant (no `workflows`, by design).
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { AppPermissions, PermissionLevel } from "./state.ts";

export const APP_MANIFEST = new URL("../../../app.yml", import.meta.url);

const LEVELS: readonly PermissionLevel[] = ["read", "write", "admin"];

/** `default_permissions` of a manifest's text; throws naming the field when it is not one. */
export function manifestPermissions(text: string): AppPermissions {
  const manifest: unknown = parse(text);
  const permissions = typeof manifest === "object" && manifest !== null ? (manifest as Record<string, unknown>)["default_permissions"] : undefined;
  if (typeof permissions !== "object" || permissions === null) throw new Error("app.yml: default_permissions is missing or not a mapping");
  const out: Record<string, PermissionLevel> = {};
  for (const [name, level] of Object.entries(permissions)) {
    const known = LEVELS.find((l) => l === level);
    if (known === undefined) throw new Error(`app.yml: default_permissions.${name} is ${JSON.stringify(level)}, not read, write or admin`);
    out[name] = known;
  }
  return out;
}

/** naruto's App permissions, as app.yml asks for them. */
export function narutoAppPermissions(): AppPermissions {
  return manifestPermissions(readFileSync(APP_MANIFEST, "utf8"));
}
