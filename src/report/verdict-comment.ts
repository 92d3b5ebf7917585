/**
 * The verdict comment (docs/architecture.md): one comment on the queue pull request, updated in place and
 * found by its hidden marker, with the arbiter's verdict and findings.
 */
import { resultCiNote, type ResultCi } from "./result-ci.ts";
import type { Mission } from "../mission/index.ts";
import { codeSpan, inlineText } from "./escape.ts";
import { assemble, COMMENT_LIMIT } from "./fit.ts";
import { progressOf, VERDICT_MARK } from "./format.ts";
import { baseMovedLine } from "./queue-checks.ts";
import { findingsTable, queueLine, verdictHeadline } from "./sections.ts";
import { markerId } from "./tracking-comment.ts";

/** The hidden marker that starts the verdict comment of a mission. */
export function verdictMarker(missionId: string): string {
  return `<!-- naruto:verdict:${markerId(missionId)} -->`;
}

/**
 * The verdict comment: verdict, summary, findings, and what it rests on (items integrated, the
 * queue head it judged). Under GitHub's comment limit: a long findings table is cut with a note.
 */
export function verdictComment(mission: Mission, { ci }: { readonly ci?: ResultCi } = {}): string {
  const v = mission.verdict;
  const title = v === null ? "⏳ naruto verdict: not reviewed yet" : `${VERDICT_MARK[v.verdict]} naruto verdict: ${v.verdict}`;
  const merge =
    mission.kind === "review"
      ? "naruto only reviewed this pull request: it pushed nothing and merges nothing."
      : v?.verdict === "approve"
        ? "The queue may be merged."
        : "Not approved means not merged: naruto does not merge this queue into the base branch.";
  return `${assemble(
    [
      `${verdictMarker(mission.id)}\n## ${title}`,
      v === null ? verdictHeadline(v) : inlineText(v.summary, 2000),
      findingsTable(v?.findings ?? []),
      `Mission ${codeSpan(mission.id)} · ${progressOf(mission)}\n\n${queueLine(mission)}`,
      baseMovedLine(mission) ?? "",
      v === null ? "" : merge,
      (ci === undefined ? null : resultCiNote(mission, ci)) ?? "",
    ].filter((p) => p !== ""),
    COMMENT_LIMIT,
  )}\n`;
}
