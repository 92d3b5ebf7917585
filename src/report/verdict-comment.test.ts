import { describe, expect, it } from "vitest";
import { COMMENT_LIMIT } from "./fit.ts";
import { manyFindingsMission, reviewedMission, runningMission } from "./missions.fixture.ts";
import { verdictComment } from "./verdict-comment.ts";

describe("verdictComment", () => {
  it("renders the verdict, its findings and what it rests on", () => {
    expect(verdictComment(reviewedMission())).toMatchSnapshot();
  });

  it("starts with the hidden marker of the mission", () => {
    expect(verdictComment(reviewedMission()).startsWith("<!-- naruto:verdict:m-test1 -->\n")).toBe(true);
  });

  it("says when the mission is not reviewed yet", () => {
    expect(verdictComment(runningMission())).toContain("## ⏳ naruto verdict: not reviewed yet");
  });

  it("stays under GitHub's comment limit with 1,000 findings", () => {
    const comment = verdictComment(manyFindingsMission(1000));
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    const shown = comment.split("\n").filter((l) => l.startsWith("| ❌ error")).length;
    const hidden = Number(/… and (\d+) more findings — see the report/.exec(comment)?.[1]);
    expect(shown + hidden).toBe(1000);
    expect(comment).toContain("## ⛔ naruto verdict: block");
    expect(comment.trimEnd()).toMatch(/Not approved means not merged/);
  });
});
