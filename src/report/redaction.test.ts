/**
 * Issue 13, point 7, at the renderers: an item whose reason carries the tail of an agent's output
 * with credentials in it (a mission stored before redaction, or text that reached the mission
 * past it) shows none of them in the tracking comment, the verdict comment (whose findings quote
 * the reason) or the report. The renderers hold no secret values; they redact the known formats
 * before they cut and escape, where a later look could no longer recognise them.
 */
import { describe, expect, it } from "vitest";
import { policyFindings, reviewMission } from "../arbiter/index.ts";
import type { Mission } from "../mission/index.ts";
import { at, item, missionAfter, planned, requested } from "../../test/support/mission-builders.ts";
import { LEAKY, leaksIn } from "../../test/support/leaks.ts";
import { missionReport } from "./markdown.ts";
import { trackingComment } from "./tracking-comment.ts";
import { verdictComment } from "./verdict-comment.ts";
import { step } from "../mission/index.ts";

const { setting: _setting, awsSecret: _bare, ...formatted } = LEAKY;
/** What has a known format (the setting has none; a bare AWS secret key is known only beside its id). */
const FORMATTED: Record<string, string> = formatted;

const OUTPUT = [
  "exited with code 1",
  `${LEAKY.ghsLong} ${LEAKY.anthropicEnv}`,
  `leaky: found ${LEAKY.ghsClassic} ${LEAKY.githubPat} ${LEAKY.openai} ${LEAKY.anthropic}`,
  `leaky: aws ${LEAKY.awsKeyId} ${LEAKY.awsSecret}`,
].join("\n");

async function leakedMission(): Promise<Mission> {
  const failed = missionAfter([
    requested({ max_attempts: 1 }),
    planned([item("leak", [], { title: `Use ${LEAKY.ghsClassic}` })]),
    { type: "attempt_started", at: at(2), item: "leak", attempt: 1, base: "b".repeat(40), runner: null },
    {
      type: "attempt_finished",
      at: at(3),
      item: "leak",
      attempt: 1,
      outcome: { kind: "failed", reason: OUTPUT },
      summary: `I used ${LEAKY.anthropic}`,
      model: LEAKY.openai,
    },
  ]);
  const policy = policyFindings({
    mission: failed,
    changedPaths: [],
    protectedPaths: [],
    queue: { verifyConfigured: false, headVerified: false },
    proofCheck: { ok: true },
  });
  const verdict = await reviewMission({ mission: failed, diff: "", policy });
  return step(failed, { type: "reviewed", at: at(4), ...verdict, summary: `${verdict.summary} (${LEAKY.ghsLong})` }).mission;
}

describe("the comment renderers with credentials in an item's reason", () => {
  it("show none of them in the tracking comment, the verdict comment or the report", async () => {
    const mission = await leakedMission();
    // The attack is real: the reason, the findings and the verdict hold every one of them.
    expect(leaksIn(JSON.stringify(mission), FORMATTED).sort()).toEqual(Object.keys(FORMATTED).sort());
    const rendered = { tracking: trackingComment(mission), verdict: verdictComment(mission), report: missionReport(mission) };
    const leaks = Object.entries(rendered).flatMap(([where, text]) => leaksIn(text, FORMATTED).map((name) => `${name} in the ${where}`));
    expect(leaks).toEqual([]);
    expect(rendered.tracking).toContain("failed: exited with code 1 \\[redacted\\]");
    expect(rendered.verdict).toContain("\\[redacted\\]");
  });
});
