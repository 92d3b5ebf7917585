/**
 * The mission report in markdown (docs/architecture.md, issue 4): the request, the verdict with its
 * findings, the items, the proof, the queue, the cost and the graph. Pure: the same mission
 * always renders the same text; every untrusted string is escaped on its way in.
 */
import type { Mission, MissionItem } from "../mission/index.ts";
import { cellCode, codeSpan, inlineText, quoteBlock } from "./escape.ts";
import { assemble, COMMENT_LIMIT, type FlexibleList, type Part } from "./fit.ts";
import { formatDuration, formatUsage, itemBranch, itemDurationMs, progressOf, shortSha, STATUS_MARK, usageOf } from "./format.ts";
import { mermaidBlock } from "./mermaid.ts";
import { findingsTable, proofSection, queueLine, verdictHeadline } from "./sections.ts";
import { queueCheckLines } from "./queue-checks.ts";

export { trackingComment, type TrackingLinks } from "./tracking-comment.ts";
export { verdictComment } from "./verdict-comment.ts";

export interface ReportOptions {
  /** Longest report in characters; default GitHub's comment limit, so it can be posted as is. */
  readonly limit?: number;
  /** Where each attempt's prompt, output and result are kept (a local run's records folder). */
  readonly logs?: string;
}

/**
 * The full mission report. Long tables are cut to stay within `limit`, with a note saying how
 * many rows were left out (the JSON result always has every item).
 */
export function missionReport(mission: Mission, options: ReportOptions = {}): string {
  const limit = options.limit ?? COMMENT_LIMIT;
  const usage = usageOf(mission.items);
  const hasUsage = usage.costUsd !== null || usage.tokensIn !== null || usage.tokensOut !== null;
  const items = itemsTable(mission, hasUsage);
  const parts = (graph: string): Part[] => [
    `# naruto mission ${codeSpan(mission.id)}${mission.plan_title ? `: ${inlineText(mission.plan_title, 120)}` : ""}`,
    summaryLine(mission),
    "## Request",
    quoteBlock(mission.task),
    "## Verdict",
    verdictHeadline(mission.verdict),
    findingsTable(mission.verdict?.findings ?? []),
    "## Items",
    items,
    "## No-overlap proof",
    proofSection(mission),
    "## Queue",
    queueLine(mission),
    ...queueCheckLines(mission),
    "## Containment",
    containmentSection(mission, options.logs ?? null),
    "## Cost",
    hasUsage ? `Total reported by the agents: ${formatUsage(usage)}.` : "No agent reported its cost or tokens.",
    "## Graph",
    graph,
  ];
  // Every item's row outranks a drawing of every item: the full graph only when both fit whole
  // (the proof and findings tables take what is left), else the condensed one.
  const full = mermaidBlock(mission);
  const rowsAndGraph = parts(full).map((p) => (typeof p === "string" || p === items ? p : { ...p, lines: [] }));
  const graph = assemble(rowsAndGraph, Infinity).length <= limit - FULL_GRAPH_MARGIN ? full : mermaidBlock(mission, { maxItems: 0 });
  return `${assemble(parts(graph), limit)}\n`;
}

// Room kept for the notes of cut tables and the blank lines around them.
const FULL_GRAPH_MARGIN = 2048;

/**
 * What agents ran in, what the tamper record found (each change with its old value, so it can be
 * put back), and where the agents' logs are.
 */
function containmentSection(mission: Mission, logs: string | null): string {
  const lines: string[] = [];
  const sandbox = mission.sandbox;
  if (sandbox === null) lines.push("The sandbox was not recorded for this mission.");
  else if (sandbox.startsWith("none"))
    lines.push(
      `**Agents ran without a sandbox:** ${inlineText(sandbox, 200)}. They could reach anything your user can; the tamper record below is what naruto checked.`,
    );
  else lines.push(`Agents, the planner, the review and verify commands ran in the sandbox: ${inlineText(sandbox, 100)}.`);
  if (mission.tampering.length === 0)
    lines.push("", "The tamper record found no change to your refs, HEAD, git config, hooks or info, nor to naruto's own refs.");
  else {
    lines.push("", "The tamper record found:", "");
    for (const f of mission.tampering) {
      const change = `${codeSpan(f.what, 200)}: ${f.before === null ? "(absent)" : codeSpan(f.before, 80)} → ${f.after === null ? "(deleted)" : codeSpan(f.after, 80)}`;
      const who =
        f.blame === "user"
          ? "agents could not reach the repository: taken for your own change"
          : f.blame === "not_naruto"
            ? "naruto's own ref, moved by something other than naruto"
            : f.blame === "forged_artifact"
              ? "a forgery: refused, nothing of it was used"
              : `changed while ${f.attempts.map((a) => codeSpan(a, 80)).join(", ")} ran without the sandbox`;
      lines.push(`- ${change} — ${who}${f.action ? `; ${inlineText(f.action, 200)}` : ""}`);
    }
  }
  if (logs !== null)
    lines.push("", `Each attempt's prompt, output (\`output.log\`, its last MiB) and result are kept under ${codeSpan(logs, 300)}\`/<item>/<attempt>/\`.`);
  return lines.join("\n");
}

function summaryLine(mission: Mission): string {
  const parts = [`**Status:** ${mission.status}`, `**Items:** ${progressOf(mission)}`];
  if (mission.verdict) parts.push(`**Verdict:** ${mission.verdict.verdict}`);
  const line = parts.join(" · ");
  return mission.reason === null ? line : `${line}\n\n**Stopped:** ${inlineText(mission.reason, 300)}`;
}

function itemsTable(mission: Mission, withUsage: boolean): FlexibleList | string {
  if (mission.items.length === 0) return "No items yet.";
  const columns = ["", "item", "status", "attempts", "duration", "changed", "branch", "commit", ...(withUsage ? ["cost"] : [])];
  return {
    head: [`| ${columns.join(" | ")} |`, `|${columns.map(() => "---").join("|")}|`],
    lines: mission.items.map((item) => {
      const cells = [
        STATUS_MARK[item.status],
        `${cellCode(item.id, 64)} ${inlineText(item.title, 80)}`,
        statusCell(item),
        String(item.attempts.length),
        formatDuration(itemDurationMs(mission, item)),
        changedCell(item),
        item.attempts.length === 0 ? "—" : cellCode(itemBranch(mission, item)),
        item.commit === null ? "—" : cellCode(shortSha(item.commit)),
        ...(withUsage ? [formatUsage(usageOf([item]))] : []),
      ];
      return `| ${cells.join(" | ")} |`;
    }),
    note: (hidden) => `\n_… and ${hidden} more items — see the JSON result (\`naruto status ${mission.id} --json\`)._`,
    weight: 3,
  };
}

function statusCell(item: MissionItem): string {
  const status = item.tests === "may_weaken" ? `${item.status} (may weaken tests: \`tests: may_weaken\`)` : item.status;
  return item.status === "integrated" || item.reason === null ? status : `${status}: ${inlineText(item.reason, 160)}`;
}

/** Files the item changed: those on the queue, or the last checkpoint's when not integrated yet. */
function changedCell(item: MissionItem): string {
  const changed = item.changed.length > 0 ? item.changed : (item.attempts.at(-1)?.changed ?? []);
  if (changed.length === 0) return "—";
  const shown = changed.slice(0, 3).map((p) => cellCode(shortenPath(p), 60));
  const more = changed.length - shown.length;
  return more > 0 ? `${shown.join(", ")} +${more} more` : shown.join(", ");
}

/** A long path keeps its end, where the file name is: `…/handlers/users.ts`. */
function shortenPath(path: string, max = 40): string {
  if (path.length <= max) return path;
  const tail = path.slice(path.length - max + 2);
  const cut = tail.indexOf("/");
  return `…/${cut >= 0 && cut < tail.length - 1 ? tail.slice(cut + 1) : tail}`;
}
