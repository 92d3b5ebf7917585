import { createHash } from "node:crypto";
import type { Plan } from "./types.ts";

/**
 * The digest a proof carries of the plan it was made for: sha256 over a canonical JSON form of
 * what the proof depends on — each item's id, normalized writes and declared `after`, in plan
 * order. Titles, prompts and estimates are left out: editing them cannot make a proof wrong.
 *
 * @example planDigest(plan) → "sha256:3f5a…"
 */
export function planDigest(plan: Plan): string {
  const canonical = JSON.stringify({
    version: plan.version,
    items: plan.items.map((item) => [item.id, item.writes.map((w) => w.path), item.after]),
  });
  return `sha256:${createHash("sha256").update(canonical, "utf8").digest("hex")}`;
}
