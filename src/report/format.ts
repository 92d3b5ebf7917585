/**
 * Small formatting shared by the report, the tracking comment and the verdict comment: status
 * marks, durations, short commits, costs. Pure; "now" is the mission's `updated_at`, never the
 * clock, so a rendering depends on the mission alone.
 */
import type { Finding, Mission, MissionItem, VerdictKind } from "../mission/index.ts";
import type { ItemStatus } from "../mission/index.ts";
import { formatUsd } from "../mission/index.ts";

export const STATUS_MARK: Readonly<Record<ItemStatus, string>> = {
  pending: "⏳",
  ready: "🔜",
  running: "🔄",
  checkpointed: "📦",
  integrated: "✅",
  failed: "❌",
  conflicted: "⚔️",
  out_of_scope: "🚫",
  timed_out: "⏱️",
  skipped: "⏭️",
  cancelled: "🛑",
  tampered: "☣️",
};

export const VERDICT_MARK: Readonly<Record<VerdictKind, string>> = { approve: "✅", request_changes: "✋", block: "⛔" };

export const SEVERITY_MARK: Readonly<Record<Finding["severity"], string>> = { error: "❌", warning: "⚠️", info: "ℹ️" };

/** The worker branch of an item (docs/architecture.md). */
export function itemBranch(mission: Mission, item: MissionItem): string {
  return `naruto/${mission.id}--${item.id}`;
}

/** The first 7 characters of a commit id, the way git and GitHub show it. */
export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

/**
 * Time the item's attempts took, summed; an attempt still under way counts up to the mission's
 * last update. Null when no attempt has started (one whose job waits for a runner has not).
 */
export function itemDurationMs(mission: Mission, item: MissionItem): number | null {
  if (item.attempts.length === 0) return null;
  const now = Date.parse(mission.updated_at);
  let total = 0;
  let counted = false;
  for (const a of item.attempts) {
    // From the job's start: the wait for a runner is not the attempt's time (it never began, when
    // it ended without a start of its own, counts from its dispatch).
    if (a.started_at === null && a.finished_at === null) continue;
    counted = true;
    const start = Date.parse(a.started_at ?? a.dispatched_at);
    const end = a.finished_at === null ? now : Date.parse(a.finished_at);
    if (Number.isFinite(start) && Number.isFinite(end) && end > start) total += end - start;
  }
  return counted ? total : null;
}

/** @example formatDuration(200_000) → "3m 20s" */
export function formatDuration(ms: number | null): string {
  if (ms === null) return "—";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  return `${Math.floor(s / 3600)}h ${pad(Math.floor(s / 60) % 60)}m`;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

export interface Usage {
  /** Summed over the attempts that reported one; null when none did. */
  readonly costUsd: number | null;
  readonly tokensIn: number | null;
  readonly tokensOut: number | null;
}

/** What the agents reported spending on these items. */
export function usageOf(items: readonly MissionItem[]): Usage {
  const sum = (pick: (a: MissionItem["attempts"][number]) => number | null): number | null => {
    let total: number | null = null;
    for (const item of items)
      for (const a of item.attempts) {
        const v = pick(a);
        if (v !== null) total = (total ?? 0) + v;
      }
    return total;
  };
  return { costUsd: sum((a) => a.cost_usd), tokensIn: sum((a) => a.tokens_in), tokensOut: sum((a) => a.tokens_out) };
}

/** @example formatUsage({ costUsd: 0.5, tokensIn: 1200, tokensOut: null }) → "$0.50 · 1,200 tokens in" */
export function formatUsage(u: Usage): string {
  const parts: string[] = [];
  if (u.costUsd !== null) parts.push(formatUsd(u.costUsd));
  if (u.tokensIn !== null) parts.push(`${thousands(u.tokensIn)} tokens in`);
  if (u.tokensOut !== null) parts.push(`${thousands(u.tokensOut)} tokens out`);
  return parts.length === 0 ? "—" : parts.join(" · ");
}

// Not toLocaleString: the output must not depend on the machine's ICU data.
function thousands(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** How many items are integrated, as "2 of 5 integrated". */
export function progressOf(mission: Mission): string {
  if (mission.kind === "review") return "arbiter review";
  const done = mission.items.filter((i) => i.status === "integrated").length;
  return `${done} of ${mission.items.length} integrated`;
}
