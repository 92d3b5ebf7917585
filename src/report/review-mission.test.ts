/** The tracking and verdict comments of a review-only mission (`/naruto review` on a pull request). */
import { describe, expect, it } from "vitest";
import type { Mission } from "../mission/index.ts";
import { step } from "../mission/index.ts";
import { at, requested } from "../../test/support/mission-builders.ts";
import { trackingComment } from "./tracking-comment.ts";
import { verdictComment } from "./verdict-comment.ts";

function reviewMission(verdict: boolean): Mission {
  const e = requested();
  if (e.type !== "requested") throw new Error("requested() must build a requested event");
  const started = step(null, {
    ...e,
    task: "Review pull request #7: Add the users API — its changes from main (users-api).",
    base: { ref: "main", commit: "b".repeat(40) },
    review: { head: "c".repeat(40) },
  }).mission;
  if (!verdict) return started;
  return step(started, {
    type: "reviewed",
    at: at(4),
    verdict: "request_changes",
    summary: "Changes requested: the review agent asks for changes. Review (request_changes): the id is not validated.",
    findings: [{ severity: "error", rule: "review", message: "the id is not validated", path: "src/users.ts", line: 3 }],
  }).mission;
}

describe("comments of a review-only mission", () => {
  it("track the review: what is reviewed, no checklist, no graph", () => {
    const comment = trackingComment(reviewMission(false));
    expect(comment).toMatchSnapshot();
    expect(comment).not.toContain("mermaid");
    expect(comment).toContain("· reviewing · arbiter review");
  });

  it("give the verdict on the pull request, saying that nothing was pushed or merged", () => {
    const comment = verdictComment(reviewMission(true));
    expect(comment).toMatchSnapshot();
    expect(comment).toContain("naruto only reviewed this pull request: it pushed nothing and merges nothing.");
    expect(comment).not.toContain("queue");
  });
});
