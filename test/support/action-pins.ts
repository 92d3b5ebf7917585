/**
 * The releases of third-party actions naruto's workflows are pinned to (scripts/action-pins.json,
 * which scripts/pin-actions.mjs pins from): the commit of each release tag and the `runs.using`
 * its `action.yml` declares there. The Actions simulator imitates exactly these releases, and
 * the pin tests hold every pinned `uses:` to a release that runs on the runners' Node (node24).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface ActionPin {
  /** `owner/repo`. */
  readonly action: string;
  /** The release tag, `vX.Y.Z`. */
  readonly version: string;
  /** The commit the tag points to. */
  readonly sha: string;
  /** `runs.using` of the action's action.yml at that commit: `node24`, `node20`, `composite`, `docker`. */
  readonly using: string;
}

export const ACTION_PINS_FILE = fileURLToPath(new URL("../../scripts/action-pins.json", import.meta.url));

/** The Node the runners have: a JavaScript action declaring anything older is forced onto it. */
export const RUNNER_NODE = "node24";

function isPin(value: unknown): value is ActionPin {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v["action"] === "string" &&
    typeof v["version"] === "string" &&
    typeof v["sha"] === "string" &&
    /^[0-9a-f]{40}$/.test(v["sha"]) &&
    typeof v["using"] === "string"
  );
}

export function loadActionPins(file = ACTION_PINS_FILE): ActionPin[] {
  const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
  if (!Array.isArray(parsed) || !parsed.every(isPin)) throw new Error(`${file}: not a list of { action, version, sha, using }`);
  return parsed;
}

/** The pinned release a `uses:` value (`owner/repo[/path]@sha`) names; null when the list has none at that commit. */
export function pinOf(pins: readonly ActionPin[], uses: string): ActionPin | null {
  const at = uses.lastIndexOf("@");
  if (at < 0) return null;
  const action = uses.slice(0, at).split("/").slice(0, 2).join("/");
  const sha = uses.slice(at + 1);
  return pins.find((p) => p.action === action && p.sha === sha) ?? null;
}
