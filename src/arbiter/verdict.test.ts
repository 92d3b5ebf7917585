import { describe, expect, it } from "vitest";
import type { Finding, Verdict, VerdictKind } from "../mission/index.ts";
import { decideVerdict, parseReviewOutput } from "./verdict.ts";

const GOOD = {
  verdict: "request_changes",
  summary: "Validation is missing in orders.",
  findings: [
    { severity: "error", message: "orders handler accepts any body", path: "src/api/orders.ts", line: 12 },
    { severity: "info", message: "nice tests", rule: "style" },
  ],
};

const EXPECTED: Verdict = {
  verdict: "request_changes",
  summary: "Validation is missing in orders.",
  findings: [
    { severity: "error", rule: "review", message: "orders handler accepts any body", path: "src/api/orders.ts", line: 12 },
    { severity: "info", rule: "style", message: "nice tests", path: null, line: null },
  ],
};

describe("parseReviewOutput", () => {
  it.each([
    ["the whole text", JSON.stringify(GOOD)],
    ["the whole text with blank lines around", `\n\n${JSON.stringify(GOOD, null, 2)}\n`],
    ["a fenced json block", `Here is my review.\n\n\`\`\`json\n${JSON.stringify(GOOD, null, 2)}\n\`\`\`\n\nThanks!`],
    ["the last of several fenced blocks", `\`\`\`json\n{"verdict": "maybe"}\n\`\`\`\nActually:\n\`\`\`json\n${JSON.stringify(GOOD)}\n\`\`\``],
    ["an object after prose", `I read the diff {carefully}. "Quotes" too.\n${JSON.stringify(GOOD)}`],
    ["the last object of several", `{"verdict":"approve","summary":"draft","findings":[]}\nOn reflection:\n${JSON.stringify(GOOD)}`],
    [
      "an object with braces inside strings, after prose",
      `Verdict below.\n${JSON.stringify({ ...GOOD, findings: GOOD.findings, summary: "use {x} not } or {" })}`,
    ],
    ["an agent's JSON wrapper", JSON.stringify({ type: "result", is_error: false, result: `Done.\n${JSON.stringify(GOOD)}` })],
  ])("reads a verdict from %s", (_case, text) => {
    const r = parseReviewOutput(text);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.review.findings).toEqual(EXPECTED.findings);
    if (r.ok) expect(r.review.verdict).toBe("request_changes");
  });

  it("keeps a summary with braces intact", () => {
    const r = parseReviewOutput(`note {\n${JSON.stringify({ ...GOOD, summary: "use {x} not } or {" })}`);
    expect(r.ok && r.review.summary).toBe("use {x} not } or {");
  });

  it("defaults missing findings to none", () => {
    expect(parseReviewOutput('{"verdict":"approve","summary":"fine"}')).toEqual({ ok: true, review: { verdict: "approve", summary: "fine", findings: [] } });
  });

  it.each([
    ["empty output", "", /contains no JSON object/],
    ["prose only", "I think it looks fine, approve!", /contains no JSON object/],
    ["broken JSON", '{"verdict": "approve", "summary": ', /contains no JSON object/],
    ["an unknown verdict", '{"verdict": "lgtm", "summary": "ok", "findings": []}', /not a verdict: verdict:/],
    ["a finding without a message", '{"verdict": "approve", "summary": "", "findings": [{"severity": "error"}]}', /not a verdict: findings\.0\.message/],
    ["a JSON array", '[{"verdict": 1}]', /not a verdict/],
  ])("turns %s into a review_output finding instead of throwing", (_case, text, message) => {
    const r = parseReviewOutput(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.finding).toMatchObject({ severity: "error", rule: "review_output", path: null, line: null });
      expect(r.finding.message).toMatch(message);
    }
  });

  it("survives a huge output full of braces", () => {
    const r = parseReviewOutput("{".repeat(50_000) + "}".repeat(10) + "x".repeat(100_000));
    expect(r.ok).toBe(false);
  });
});

const f = (severity: Finding["severity"], rule: string): Finding => ({ severity, rule, message: `${rule} says so`, path: null, line: null });
const review = (verdict: VerdictKind, findings: Finding[] = []): Verdict => ({ verdict, summary: `review says ${verdict}`, findings });

describe("decideVerdict", () => {
  it.each<[string, Finding[], Verdict | null, VerdictKind]>([
    ["nothing found, no review agent", [], null, "approve"],
    ["nothing found, the review approves", [], review("approve"), "approve"],
    [
      "only warnings and infos outside the item rules",
      [f("warning", "proof_unchecked"), f("info", "x")],
      review("approve", [f("warning", "review")]),
      "approve",
    ],
    ["a protected path touched", [f("error", "protected_path")], review("approve"), "block"],
    ["the proof failed", [f("error", "proof")], null, "block"],
    ["an unverified queue head", [f("error", "queue_unverified")], null, "block"],
    ["a block beats missing items", [f("error", "item_failed"), f("error", "protected_path")], null, "block"],
    ["the review agent blocks", [], review("block"), "block"],
    ["an item failed", [f("error", "item_failed")], review("approve"), "request_changes"],
    ["an item skipped (a warning, still not integrated)", [f("warning", "item_skipped")], null, "request_changes"],
    ["an item unexplained", [f("error", "item_unexplained")], null, "request_changes"],
    ["an item unfinished", [f("error", "item_unfinished")], null, "request_changes"],
    ["the mission stopped early", [f("error", "mission_stopped")], null, "request_changes"],
    ["the proof was not checked", [f("error", "proof_unchecked")], null, "request_changes"],
    ["the review output was unreadable", [f("error", "review_output")], null, "request_changes"],
    ["the review asks for changes", [], review("request_changes"), "request_changes"],
    ["the review approves but reports an error", [], review("approve", [f("error", "review")]), "request_changes"],
    ["the review names a blocking rule (only the policy blocks by rule)", [], review("approve", [f("error", "protected_path")]), "request_changes"],
    ["a policy warning of a blocking rule", [f("warning", "protected_path")], null, "approve"],
  ])("%s → %s", (_case, policy, rev, expected) => {
    expect(decideVerdict({ policy, review: rev }).verdict).toBe(expected);
  });

  it("keeps every finding, policy first, then the review's", () => {
    const v = decideVerdict({ policy: [f("error", "item_failed")], review: review("approve", [f("info", "review")]) });
    expect(v.findings.map((x) => x.rule)).toEqual(["item_failed", "review"]);
  });

  it.each<[string, Finding[], Verdict | null, string]>([
    ["an approval without review", [], null, "Approved: every policy rule passed. Policy rules only: no review agent ran."],
    ["an approval with review", [], review("approve"), "Approved: every policy rule passed. Review (approve): review says approve"],
    [
      "a block",
      [f("error", "protected_path"), f("error", "protected_path"), f("error", "proof")],
      review("block"),
      "Blocked: a protected path changed; the no-overlap proof does not hold; the review agent blocks it. Review (block): review says block",
    ],
    [
      "changes",
      [f("error", "item_failed"), f("warning", "item_skipped"), f("error", "mission_stopped")],
      review("request_changes"),
      "Changes requested: 2 items not integrated; 1 other error; the review agent asks for changes. Review (request_changes): review says request_changes",
    ],
  ])("summarizes %s", (_case, policy, rev, summary) => {
    expect(decideVerdict({ policy, review: rev }).summary).toBe(summary);
  });

  it("says why there is no review when told", () => {
    expect(decideVerdict({ policy: [], review: null, noReviewReason: "the queue holds no change to review" }).summary).toBe(
      "Approved: every policy rule passed. Policy rules only: the queue holds no change to review.",
    );
  });
});
