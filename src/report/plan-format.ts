/**
 * The human output of `naruto plan`: the items, the conflicts and how each is ordered, the
 * estimated timeline, and a Mermaid graph of the plan.
 */
import { graphMarkdown } from "./mermaid.ts";
import type { PlanReport } from "./plan-report.ts";

/** Conflicting pairs listed at most: the pairs of one shared path grow with the square of its items. */
const MAX_CONFLICT_LINES = 40;

export function formatPlanHuman(report: PlanReport): string {
  const { check, json } = report;
  const plan = check.plan;
  if (!plan) return "";
  const out: string[] = [`plan: ${plan.title || "(untitled)"} — ${plan.items.length} items${json.ok ? "" : " (INVALID)"}`, ""];

  const rows = plan.items.map((item, i) => {
    const ordered = json.items[i];
    return [
      item.id,
      item.readonly ? "(read-only)" : item.writes.map((w) => w.path).join(", "),
      (ordered?.after ?? []).join(", ") || "-",
      (ordered?.added_after ?? []).join(", ") || "-",
      fmt(ordered?.rank ?? 0),
    ];
  });
  out.push(...table(["item", "writes", "after", "added after", "rank"], rows), "");

  if (json.conflicts.length === 0) {
    out.push("conflicts: none — every item writes its own paths", "");
  } else {
    out.push(`conflicts: ${json.conflicts.length}`);
    // n items on one path are n(n−1)/2 pairs: the output stays linear in the items, and an
    // unordered pair (the one a reader must act on) is never among those left out.
    const shown = [...json.conflicts.filter((c) => c.order === "unordered"), ...json.conflicts.filter((c) => c.order !== "unordered")].slice(
      0,
      MAX_CONFLICT_LINES,
    );
    for (const c of shown) {
      const how =
        c.order === "declared"
          ? "ordered by the plan's own after"
          : c.order === "added"
            ? `ordered: naruto added "${c.a}" before "${c.b}"`
            : "NOT ORDERED (--strict)";
      out.push(`  ${c.a} × ${c.b} on ${c.path}: ${how}`);
    }
    const hidden = json.conflicts.length - shown.length;
    const unordered = json.conflicts.filter((c) => c.order === "unordered").length - shown.filter((c) => c.order === "unordered").length;
    if (hidden > 0)
      out.push(`  … and ${hidden} more conflicting pairs, ${unordered === 0 ? "all ordered" : `${unordered} of them NOT ORDERED`} (--json lists every one)`);
    out.push("");
  }

  if (json.schedule) {
    const s = json.schedule;
    out.push(`estimated timeline with ${s.max_parallel} agents at once: makespan ${fmt(s.makespan)} min (lower bound ${fmt(s.lower_bound)} min)`);
    const width = 40;
    const scale = s.makespan > 0 ? width / s.makespan : 0;
    const idWidth = Math.min(24, Math.max(...report.timeline.map((t) => t.id.length), 4));
    for (const t of [...report.timeline].sort((a, b) => a.start - b.start || a.slot - b.slot)) {
      const from = Math.round(t.start * scale);
      const len = Math.max(1, Math.round(t.end * scale) - from);
      out.push(
        `  ${t.id.slice(0, idWidth).padEnd(idWidth)} ${" ".repeat(from)}${"█".repeat(len)}${" ".repeat(Math.max(0, width - from - len))} ${fmt(t.start)}–${fmt(t.end)}`,
      );
    }
    out.push("");
  }

  // Every item when Mermaid accepts it (ordering edges drawn as their transitive reduction),
  // else the condensed graph; `added_after` in --json keeps every added edge.
  out.push(
    graphMarkdown(
      plan.items.map((item, i) => ({
        id: item.id,
        title: item.title,
        after: [...item.after],
        added_after: [...(json.items[i]?.added_after ?? [])],
        status: "pending" as const,
      })),
    ),
    "",
  );
  out.push(json.ok ? "plan ok: proof naruto.proof/v1 checks (see --json for the document)" : "plan invalid: see the errors above");
  return `${out.join("\n")}\n`;
}

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, c) => Math.min(48, Math.max(h.length, ...rows.map((r) => (r[c] ?? "").length))));
  const line = (cells: string[]) =>
    `  ${cells
      .map((cell, c) => cut(cell, widths[c] ?? 10).padEnd(widths[c] ?? 10))
      .join("  ")
      .trimEnd()}`;
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}

function cut(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
