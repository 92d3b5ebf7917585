/**
 * Sections shared by the mission report and the comments: the findings table, the proof
 * summary, the queue line. Each returns markdown (or a list that `assemble` may cut).
 */
import type { Finding, Mission, Verdict } from "../mission/index.ts";
import { cellCode, codeSpan, inlineText } from "./escape.ts";
import type { FlexibleList } from "./fit.ts";
import { SEVERITY_MARK, shortSha, VERDICT_MARK } from "./format.ts";
import { readProof, type ProofConflictSummary } from "./proof-summary.ts";

/** The verdict's headline: mark, verdict and summary. */
export function verdictHeadline(verdict: Verdict | null): string {
  if (verdict === null) return "⏳ **Not reviewed yet**: the arbiter reviews once every item has finished.";
  return `${VERDICT_MARK[verdict.verdict]} **${verdict.verdict}**: ${inlineText(verdict.summary, 1000)}`;
}

/** The findings as a table that may be cut, or a line saying there are none. */
export function findingsTable(findings: readonly Finding[]): FlexibleList | string {
  if (findings.length === 0) return "No findings.";
  return {
    head: ["| | rule | where | message |", "|---|---|---|---|"],
    lines: findings.map((f) => `| ${SEVERITY_MARK[f.severity]} ${f.severity} | ${cellCode(f.rule, 64)} | ${where(f)} | ${inlineText(f.message, 500)} |`),
    // A blank line first: a text line right after a table would be read as one more row.
    note: (hidden) => `\n_… and ${hidden} more findings — see the report._`,
    weight: 1,
  };
}

function where(f: Finding): string {
  if (f.path === null) return "—";
  return cellCode(f.line === null ? f.path : `${f.path}:${f.line}`, 80);
}

/** The no-overlap proof: whether it holds, and each conflicting pair with how it is ordered. */
export function proofSection(mission: Mission): FlexibleList | string {
  if (mission.proof === null) return "No proof: the mission has no plan yet.";
  const proof = readProof(mission.proof);
  if (proof === null) return "⚠️ The mission's proof is not a `naruto.proof/v1` document.";
  const claim =
    proof.ok === false
      ? "❌ The proof does not hold: some items that may run together write the same path."
      : "✅ No two items that may run at the same time write the same path.";
  const skipped =
    proof.unreadable === 0
      ? ""
      : proof.unreadable === 1
        ? " (1 conflict entry could not be read)"
        : ` (${proof.unreadable} conflict entries could not be read)`;
  if (proof.conflicts.length === 0) return `${claim} No two items write overlapping paths${skipped}.`;
  const pairs = proof.conflicts.length === 1 ? "1 conflicting pair" : `${proof.conflicts.length} conflicting pairs`;
  if (proof.conflicts.length > MAX_PAIR_ROWS) return pathsTable(proof.conflicts, `${claim} ${pairs}${skipped}, each run one after the other:`);
  return {
    head: [`${claim} ${pairs}${skipped}, each run one after the other:`, "", "| first | then | overlapping path | ordered by |", "|---|---|---|---|"],
    lines: proof.conflicts.map((c) => `| ${cellCode(c.a, 64)} | ${cellCode(c.b, 64)} | ${cellCode(c.path, 80)} | ${orderText(c.order)} |`),
    note: (hidden) => `\n_… and ${hidden} more conflicting pairs — see the proof._`,
    weight: 0.5,
  };
}

/**
 * Pairs listed one per row at most: n items writing one path are n(n−1)/2 pairs, so beyond this
 * the section lists each overlapping path once (the proof holds every pair).
 */
const MAX_PAIR_ROWS = 50;

/** The conflicting pairs summed up per overlapping path: how many items, how many pairs, how ordered. */
function pathsTable(conflicts: readonly ProofConflictSummary[], claim: string): FlexibleList {
  const byPath = new Map<string, { items: Set<string>; orders: Map<string, number> }>();
  for (const c of conflicts) {
    const entry = byPath.get(c.path) ?? { items: new Set<string>(), orders: new Map<string, number>() };
    entry.items.add(c.a).add(c.b);
    entry.orders.set(c.order, (entry.orders.get(c.order) ?? 0) + 1);
    byPath.set(c.path, entry);
  }
  return {
    head: [claim, "", "| overlapping path | items | pairs | ordered by |", "|---|---|---|---|"],
    lines: [...byPath].map(([path, { items, orders }]) => {
      const how = [...orders].map(([order, n]) => `${orderText(order)} (${n})`).join(", ");
      return `| ${cellCode(path, 80)} | ${items.size} | ${[...orders.values()].reduce((a, b) => a + b, 0)} | ${how} |`;
    }),
    note: (hidden) => `\n_… and ${hidden} more overlapping paths — see the proof._`,
    weight: 0.5,
  };
}

function orderText(order: string): string {
  if (order === "declared") return "the plan's own `after`";
  if (order === "added") return "an edge the planner added";
  if (order === "unordered") return "❌ nothing (may run together)";
  return inlineText(order, 40);
}

/** The queue branch, its head and the verify runs, on one line. */
export function queueLine(mission: Mission): string {
  if (mission.kind === "review") {
    return `Reviewed: the changes from ${codeSpan(mission.base.ref)} at ${codeSpan(shortSha(mission.base.commit))} (merge base) to ${codeSpan(shortSha(mission.queue.head))}`;
  }
  const runs = mission.queue.verify_runs === 1 ? "1 verify run" : `${mission.queue.verify_runs} verify runs`;
  const atBase = mission.queue.head === mission.base.commit ? " (still the base)" : "";
  return `Queue ${codeSpan(mission.queue.branch)} at ${codeSpan(shortSha(mission.queue.head))}${atBase} · ${runs} · base ${codeSpan(mission.base.ref)} at ${codeSpan(shortSha(mission.base.commit))}`;
}
