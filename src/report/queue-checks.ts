/**
 * What the queue learned about its verify (issue 37), as lines for the tracking comment and the
 * report: the base's own verification, flips (red, then green on the same candidate: flaky, and
 * blamed on nobody), what the tests did at the queue head, tests that stopped running, and the
 * last refresh onto a base that moved, and a base that moved since. Nothing when there is nothing to say.
 */
import type { Mission } from "../mission/index.ts";
import { codeSpan, inlineText } from "./escape.ts";
import { shortSha } from "./format.ts";

export function queueCheckLines(mission: Mission): string[] {
  const q = mission.queue;
  const lines: string[] = [];
  const base = q.base_check;
  if (base !== null) {
    const runs = base.runs.length > 1 ? ` (${base.runs.map((g) => (g ? "green" : "red")).join(", ")})` : "";
    lines.push(
      base.green
        ? `**Base:** ${codeSpan(shortSha(base.commit))} verified green before the first batch${runs}.`
        : `**Base:** ${codeSpan(shortSha(base.commit))} is red${runs}${mission.status === "failed" ? "" : `: batches were judged against its ${base.report?.failures.length ?? 0} failing test(s) (\`queue.red_base: compare\`)`}.`,
    );
  }
  if (q.flips.length > 0) {
    const suspects = [...new Set(q.flips.map((f) => (f.item === null ? "the base" : f.item)))];
    lines.push(
      `**Flaky verify:** flipped ${q.flips.length} time(s), red then green on the same candidate (${inlineText(suspects.join(", "), 120)}); no item was blamed for a flip.`,
    );
  }
  if (q.report !== null) {
    const r = q.report;
    lines.push(`**Tests** at the queue head: ${r.tests - r.skipped} run, ${r.failed} failed, ${r.skipped} skipped.`);
  }
  if (q.test_findings.length > 0) {
    const items = [...new Set(q.test_findings.flatMap((f) => f.items))];
    lines.push(
      `**Tests weakened:** ${q.test_findings.length} batch finding(s) of fewer tests run or more skipped, naming ${inlineText(items.join(", "), 120)}.`,
    );
  }
  const refresh = q.refreshes.at(-1);
  if (refresh !== undefined) {
    const out = refresh.dropped.length === 0 ? "" : `; not on the new queue: ${inlineText(refresh.dropped.map((d) => d.item).join(", "), 120)}`;
    lines.push(
      `**Refreshed** onto ${codeSpan(mission.base.ref)} at ${codeSpan(shortSha(refresh.to))} (from ${codeSpan(shortSha(refresh.from))}): ${refresh.replayed} item(s) replayed and verified${out}.`,
    );
  }
  const moved = baseMovedLine(mission);
  if (moved !== null) lines.push(moved);
  return lines;
}

/**
 * The base branch moved past the finished mission's base (`base_moved`): the queue stands on the
 * old base. Says whether naruto is replaying it (a refresh under way) or how to ask for that.
 */
export function baseMovedLine(mission: Mission): string | null {
  const moved = mission.queue.base_moved;
  if (moved === null || moved.commit === mission.base.commit) return null;
  const head = `**Base moved:** ${codeSpan(mission.base.ref)} is at ${codeSpan(shortSha(moved.commit))}, past this mission's base ${codeSpan(shortSha(mission.base.commit))}`;
  const asked = mission.queue.refresh_requested;
  if (asked !== null && asked.onto !== mission.base.commit)
    return `${head}: naruto is replaying the queue onto it (${codeSpan(shortSha(asked.onto))}), verifying it and reviewing it again.`;
  const command = mission.source.kind === "github" ? "comment `/naruto refresh`" : `run ${codeSpan(`naruto refresh ${mission.id}`)}`;
  return `${head}: the queue still stands on the old base. To replay it onto the new one, ${command} (or set \`queue.refresh: on_push\` to have naruto do it).`;
}
