/**
 * The tracking comment (docs/action.md): the live, compact form of the mission on the issue,
 * updated in place and found again by its hidden marker. Display only: it is never read back
 * as state.
 */
import type { Mission, MissionItem } from "../mission/index.ts";
import { codeSpan, inlineText, safeLink } from "./escape.ts";
import { assemble, COMMENT_LIMIT } from "./fit.ts";
import { formatDuration, itemBranch, itemDurationMs, progressOf, shortSha, STATUS_MARK } from "./format.ts";
import { COMMENT_GRAPH_ITEMS, mermaidBlock } from "./mermaid.ts";
import { resultCiNote, type ResultCi } from "./result-ci.ts";
import { runnerWaitWarning } from "./runner-wait.ts";
import { queueLine, verdictHeadline } from "./sections.ts";
import { queueCheckLines } from "./queue-checks.ts";

/** Where the comment may link; only http(s) URLs are shown. */
export interface TrackingLinks {
  /** The workflow run (or the local log) of the mission. */
  readonly run?: string;
  /** The queue pull request `naruto/<mission>` → base. */
  readonly pullRequest?: string;
  /** The full report. */
  readonly report?: string;
  /** Per item id: its current attempt's run or job; default the attempt's `runner` when it is a URL. */
  readonly items?: Readonly<Record<string, string>>;
}

/** The hidden marker that starts the tracking comment of a mission. */
export function trackingMarker(missionId: string): string {
  return `<!-- naruto:tracking:${markerId(missionId)} -->`;
}

/** Mission ids are `m-[a-z0-9]+`; anything else is reduced to that, so it cannot end the comment. */
export function markerId(missionId: string): string {
  return missionId.replace(/[^a-z0-9-]/gi, "");
}

/**
 * The tracking comment: the verdict and the links, a checklist of the items (status, branch,
 * attempt, duration, link), and the graph (every item up to {@link COMMENT_GRAPH_ITEMS}, else
 * condensed). Always under GitHub's comment limit: a long checklist ends with "… and N more
 * items — see the report".
 */
export function trackingComment(mission: Mission, { links = {}, ci }: { readonly links?: TrackingLinks; readonly ci?: ResultCi } = {}): string {
  const header = `${trackingMarker(mission.id)}\n### naruto ${codeSpan(mission.id)} · ${mission.status} · ${progressOf(mission)}`;
  const linkLine = [safeLink("pull request", links.pullRequest), safeLink("run", links.run), safeLink("full report", links.report)].filter(
    (l): l is string => l !== null,
  );
  // The verdict and the links first, the long parts (checklist, graph) last: a cut only ever
  // shortens the checklist, whose note points to the report.
  return `${assemble(
    [
      header,
      `> ${inlineText(firstLine(mission.task), 200) || "(no task)"}`,
      ...trustLines(mission),
      `**Verdict:** ${mission.kind === "review" && mission.verdict === null ? "⏳ **Not reviewed yet**: the review job reads the changes." : verdictHeadline(mission.verdict)}`,
      [queueLine(mission), ...linkLine].join(" · "),
      ...queueCheckLines(mission),
      ...(mission.reason === null ? [] : [`**Stopped:** ${inlineText(mission.reason, 300)}`]),
      ...[runnerWaitWarning(mission), ci === undefined ? null : resultCiNote(mission, ci)].filter((w): w is string => w !== null),
      ...refusedLines(mission),
      mission.items.length === 0
        ? `_${mission.kind === "review" ? "The arbiter reviews this pull request's changes; no agent changes any code." : mission.status === "planning" ? "Planning…" : "No items."}_`
        : {
            lines: mission.items.map((item) => checklistLine(mission, item, links)),
            // A blank line first: a text line right after a list item would continue it.
            note: (hidden) => `\n_… and ${hidden} more items — see the report._`,
          },
      ...(mission.kind === "review" ? [] : [mermaidBlock(mission, { maxItems: COMMENT_GRAPH_ITEMS })]),
    ],
    COMMENT_LIMIT,
  )}\n`;
}

/**
 * Whose text the mission follows (docs/architecture.md "Who may instruct"): the plan's author, texts
 * quoted to the agents as data only, and the pull request's head pinned at acceptance. Logins
 * are shown in code spans: naruto's comment must not ping anyone on every update.
 */
function trustLines(mission: Mission): string[] {
  const who = (login: string | null) => (login === null ? "a deleted account" : codeSpan(`@${login}`, 60));
  const lines: string[] = [];
  const source = mission.plan_source;
  const actor = mission.source.kind === "github" ? mission.source.actor : null;
  if (source !== null) {
    const plan: Record<typeof source.kind, string> = {
      comment: `the fenced \`naruto\` block of the comment by ${who(source.author)}`,
      issue: `the fenced \`naruto\` block of the ${mission.pull_request === null ? "issue" : "pull request"} body by ${who(source.author)}, who may instruct naruto`,
      file: "the plan file the config's schedule names",
      review_threads: "made by naruto from the unresolved review threads (quoted to the agents as data)",
      planner: `written by the planner agent${actor === null ? "" : ` from the request of ${who(actor)}`}`,
    };
    lines.push(`**Plan:** ${plan[source.kind]}.`);
  }
  for (const q of mission.quoted) {
    const what = q.source === "issue" ? "The issue body" : "The pull request's description";
    const role = q.permission === null ? "" : ` (${inlineText(q.permission, 20)} permission)`;
    lines.push(`${what} by ${who(q.author)}${role} is quoted to the agents as information only: it was not used as the plan and gives no commands.`);
  }
  if (mission.pull_request !== null) {
    lines.push(
      `**Pull request** #${mission.pull_request.number} pinned at ${codeSpan(shortSha(mission.pull_request.head))}: its head when naruto accepted the command; later pushes are not part of this mission.`,
    );
  }
  return lines;
}

/**
 * Artifacts refused as forgeries (issue 32): named, so that whoever watches the mission knows a
 * process in one of its jobs tried to pass for a leg. At most five; the report has every one.
 */
function refusedLines(mission: Mission): string[] {
  const forged = mission.tampering.filter((f) => f.blame === "forged_artifact");
  const lines = forged
    .slice(0, 5)
    .map((f) => `**Refused:** ${codeSpan(f.what, 120)} — ${inlineText(f.action ?? "not the work of the leg it is named for", 240)}`);
  if (forged.length > 5) lines.push(`_… and ${forged.length - 5} more refused artifacts — see the report._`);
  return lines;
}

function checklistLine(mission: Mission, item: MissionItem, links: TrackingLinks): string {
  const box = item.status === "integrated" ? "[x]" : "[ ]";
  const parts = [`${STATUS_MARK[item.status]} ${statusText(item)}`];
  if (item.attempts.length > 0) {
    parts.push(codeSpan(itemBranch(mission, item)));
    parts.push(`attempt ${item.attempts.length}/${Math.max(item.max_attempts, item.attempts.length)}`);
    parts.push(formatDuration(itemDurationMs(mission, item)));
  }
  const link = safeLink("run", links.items?.[item.id] ?? item.attempts.at(-1)?.runner);
  if (link) parts.push(link);
  return `- ${box} ${codeSpan(item.id, 64)} ${inlineText(item.title, 80)} — ${parts.join(" · ")}`;
}

function statusText(item: MissionItem): string {
  const current = item.attempts.at(-1);
  const allowance = item.tests === "may_weaken" ? " (may weaken tests)" : "";
  // The item runs (its attempt was started), but the attempt's job still waits for a runner.
  if (item.status === "running" && current?.status === "dispatched" && current.runner !== null) return `running${allowance}: waiting for a runner`;
  if (item.status === "integrated" || item.reason === null) return `${item.status}${allowance}`;
  return `${item.status}${allowance}: ${inlineText(item.reason, 120)}`;
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}
