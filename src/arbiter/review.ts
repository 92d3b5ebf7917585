/**
 * The arbiter's review (docs/architecture.md): the policy findings always count; an optional review
 * agent reads the integrated diff, part by part when it is large, against the request. The
 * agent is a port (a function from prompt to output), so this file runs no process itself.
 */
import type { Finding, Mission, Verdict, VerdictKind } from "../mission/index.ts";
import { buildReviewPrompt, chunkDiff, REVIEW_CHUNK_CHARS } from "./review-prompt.ts";
import { RULES } from "./rules.ts";
import { decideVerdict, parseReviewOutput } from "./verdict.ts";

/** Runs the review agent on a prompt; returns its output (or its result text). */
export type ReviewAgent = (prompt: string) => Promise<string>;

export interface ReviewMissionInput {
  readonly mission: Mission;
  /** The integrated diff: the queue head against the base commit. */
  readonly diff: string;
  /** The policy findings ({@link policyFindings}). */
  readonly policy: readonly Finding[];
  /** The review agent; without one the verdict is the policy's alone. */
  readonly runReviewAgent?: ReviewAgent;
  /** Characters of diff per review prompt; default {@link REVIEW_CHUNK_CHARS}. */
  readonly chunkChars?: number;
}

/**
 * Reviews a mission: asks the review agent about each part of the diff, merges what it says
 * (the strictest verdict of the parts, all their findings) and decides with the policy
 * findings. Never throws for the agent's sake: a failing or unreadable agent is an `error`
 * finding of rule `review_output`, which asks for changes.
 *
 * @example
 * await reviewMission({ mission, diff, policy: policyFindings(facts), runReviewAgent: (p) => runAgent(p) })
 * // { verdict: "approve", summary: "Approved: every policy rule passed. Review (approve): …", findings: [] }
 */
export async function reviewMission(input: ReviewMissionInput): Promise<Verdict> {
  const { mission, policy, runReviewAgent } = input;
  if (!runReviewAgent) return decideVerdict({ policy, review: null });
  const chunks = chunkDiff(input.diff, input.chunkChars ?? REVIEW_CHUNK_CHARS);
  if (chunks.length === 0) return decideVerdict({ policy, review: null, noReviewReason: "the queue holds no change to review" });

  const parts: Verdict[] = [];
  for (const [i, chunk] of chunks.entries()) {
    const prompt = buildReviewPrompt({ mission, chunk, part: i + 1, parts: chunks.length });
    parts.push(await reviewPart(runReviewAgent, prompt, chunks.length > 1 ? `part ${i + 1} of ${chunks.length}: ` : ""));
  }
  return decideVerdict({ policy, review: mergeReviews(parts) });
}

async function reviewPart(agent: ReviewAgent, prompt: string, label: string): Promise<Verdict> {
  let output: string;
  try {
    output = await agent(prompt);
  } catch (error) {
    const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return unreadable(`${label}the review agent failed: ${why}`);
  }
  const parsed = parseReviewOutput(output);
  if (!parsed.ok) return unreadable(`${label}${parsed.finding.message}`);
  return { ...parsed.review, summary: `${label}${parsed.review.summary}` };
}

/** A part the agent did not answer readably: it cannot approve. */
function unreadable(message: string): Verdict {
  const finding: Finding = { severity: "error", rule: RULES.reviewOutput, message, path: null, line: null };
  return { verdict: "request_changes", summary: message, findings: [finding] };
}

const STRICTNESS: Record<VerdictKind, number> = { approve: 0, request_changes: 1, block: 2 };

function mergeReviews(parts: readonly Verdict[]): Verdict {
  let verdict: VerdictKind = "approve";
  for (const p of parts) if (STRICTNESS[p.verdict] > STRICTNESS[verdict]) verdict = p.verdict;
  return {
    verdict,
    summary: parts
      .map((p) => p.summary)
      .filter((s) => s !== "")
      .join(" "),
    findings: parts.flatMap((p) => p.findings),
  };
}
