/**
 * The review agent's verdict JSON (a trust boundary: validated with zod) and the decision that
 * combines it with the policy findings into the mission's verdict (docs/architecture.md).
 *
 * Decision table, first matching row wins:
 *
 * | condition                                                                 | verdict           |
 * |---------------------------------------------------------------------------|-------------------|
 * | a policy `error` of a blocking rule: `protected_path`, `proof`, `queue_unverified`, `tampered` | `block` |
 * | the review agent says `block`                                             | `block`           |
 * | any finding of an item rule (`item_failed`, `item_skipped`, `item_unexplained`, `item_unfinished`), whatever its severity: an item is not integrated | `request_changes` |
 * | any other `error` finding (mission stopped, proof unchecked, agents run as root without a sandbox, unreadable review output, an `error` from the review agent) | `request_changes` |
 * | the review agent says `request_changes`                                   | `request_changes` |
 * | otherwise: every rule passed, and the review (if any) approves            | `approve`         |
 *
 * Warnings and infos outside the item rules never change the verdict; they are reported.
 */
import { z } from "zod";
import { VERDICTS, type Finding, type Verdict, type VerdictKind } from "../mission/index.ts";
import { jsonCandidates } from "./find-json.ts";
import { BLOCKING_RULES, NOT_INTEGRATED_RULES, RULES } from "./rules.ts";

/** Longest finding message kept from the review agent: a report is not a log. */
const MAX_MESSAGE = 4000;

const reviewFindingSchema = z.object({
  severity: z.enum(["info", "warning", "error"]),
  message: z
    .string()
    .min(1)
    .transform((m) => m.slice(0, MAX_MESSAGE)),
  rule: z.string().min(1).max(64).optional(),
  path: z.string().nullable().optional(),
  line: z.number().int().min(0).nullable().optional(),
});

/** The verdict JSON the review agent is asked for. */
export const reviewOutputSchema = z.object({
  verdict: z.enum(VERDICTS),
  summary: z.string().default(""),
  findings: z.array(reviewFindingSchema).default([]),
});

export type ReviewParse = { readonly ok: true; readonly review: Verdict } | { readonly ok: false; readonly finding: Finding };

/**
 * Reads the review agent's verdict from its output: the whole text, a fenced block, or the last
 * JSON object in it. Also looks inside an agent's JSON wrapper with a string `result` (as
 * `claude -p --output-format json` prints). Never throws: unreadable output is an `error`
 * finding of rule `review_output`.
 *
 * @example parseReviewOutput('Looks good.\n```json\n{"verdict":"approve","summary":"ok","findings":[]}\n```')
 * // { ok: true, review: { verdict: "approve", summary: "ok", findings: [] } }
 */
export function parseReviewOutput(text: string): ReviewParse {
  // The first JSON that is not a verdict is the likeliest answer: its problem is the one to show.
  let problem: string | null = null;
  const tryText = (t: string, depth: number): Verdict | null => {
    for (const candidate of jsonCandidates(t)) {
      let value: unknown;
      try {
        value = JSON.parse(candidate);
      } catch {
        continue;
      }
      const parsed = reviewOutputSchema.safeParse(value);
      if (parsed.success) return normalize(parsed.data);
      if (depth === 0 && isWrapper(value)) {
        const inner = tryText(value.result, depth + 1);
        if (inner) return inner;
      }
      const issue = parsed.error.issues[0];
      problem ??= `its JSON is not a verdict: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`;
    }
    return null;
  };
  const review = tryText(text, 0);
  if (review) return { ok: true, review };
  return {
    ok: false,
    finding: {
      severity: "error",
      rule: RULES.reviewOutput,
      message: `the review agent's output could not be read as a verdict (${problem ?? "it contains no JSON object"}); expected {"verdict": "approve"|"request_changes"|"block", "summary": …, "findings": […]}`,
      path: null,
      line: null,
    },
  };
}

function isWrapper(value: unknown): value is { result: string } {
  return typeof value === "object" && value !== null && "result" in value && typeof value.result === "string";
}

function normalize(out: z.output<typeof reviewOutputSchema>): Verdict {
  return {
    verdict: out.verdict,
    summary: out.summary,
    findings: out.findings.map((f) => ({
      severity: f.severity,
      rule: f.rule ?? RULES.review,
      message: f.message,
      path: f.path ?? null,
      line: f.line ?? null,
    })),
  };
}

export interface VerdictInput {
  /** Findings of {@link policyFindings} (and any other rule that ran without a model). */
  readonly policy: readonly Finding[];
  /** The review agent's verdict; `null` when no review agent ran. */
  readonly review: Verdict | null;
  /** Why there is no review, for the summary; default "no review agent ran". */
  readonly noReviewReason?: string;
}

/** Decides the mission's verdict from the policy findings and the review (see the table above). */
export function decideVerdict(input: VerdictInput): Verdict {
  const { policy, review } = input;
  const findings = [...policy, ...(review?.findings ?? [])];
  // Only the policy can block by rule: a review agent cannot borrow a policy rule's weight.
  const blocking = policy.filter((f) => f.severity === "error" && BLOCKING_RULES.has(f.rule));
  const notIntegrated = findings.filter((f) => NOT_INTEGRATED_RULES.has(f.rule));
  const otherErrors = findings.filter((f) => f.severity === "error" && !blocking.includes(f) && !NOT_INTEGRATED_RULES.has(f.rule));

  let verdict: VerdictKind = "approve";
  const why: string[] = [];
  if (blocking.length > 0 || review?.verdict === "block") {
    verdict = "block";
    for (const rule of new Set(blocking.map((f) => f.rule))) why.push(BLOCK_REASONS[rule] ?? rule);
    if (review?.verdict === "block") why.push("the review agent blocks it");
  } else if (notIntegrated.length > 0 || otherErrors.length > 0 || review?.verdict === "request_changes") {
    verdict = "request_changes";
    if (notIntegrated.length > 0) why.push(`${count(notIntegrated.length, "item")} not integrated`);
    if (otherErrors.length > 0) why.push(count(otherErrors.length, "other error"));
    if (review?.verdict === "request_changes") why.push("the review agent asks for changes");
  }
  const head = verdict === "approve" ? "Approved: every policy rule passed." : `${LABEL[verdict]}: ${why.join("; ")}.`;
  const tail =
    review === null ? `Policy rules only: ${input.noReviewReason ?? "no review agent ran"}.` : `Review (${review.verdict}): ${review.summary || "no summary"}`;
  return { verdict, summary: `${head} ${tail}`, findings };
}

const LABEL: Record<VerdictKind, string> = { approve: "Approved", request_changes: "Changes requested", block: "Blocked" };

const BLOCK_REASONS: Record<string, string> = {
  [RULES.protectedPath]: "a protected path changed",
  [RULES.proof]: "the no-overlap proof does not hold",
  [RULES.queueUnverified]: "the queue head is not verified",
  [RULES.tampered]: "something reached around naruto's checks (tampered)",
};

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
