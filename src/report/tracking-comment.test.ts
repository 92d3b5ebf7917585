import { describe, expect, it } from "vitest";
import { COMMENT_LIMIT } from "./fit.ts";
import { hostileMission, hugeMission, reviewedMission, runningMission } from "./missions.fixture.ts";
import { trackingComment, trackingMarker } from "./tracking-comment.ts";

const links = {
  pullRequest: "https://github.com/acme/demo/pull/2",
  run: "https://github.com/acme/demo/actions/runs/7",
  items: { docs: "https://github.com/acme/demo/actions/runs/7/job/99" },
};

describe("trackingComment", () => {
  it("renders the checklist, queue, links, graph and verdict of a mission under way", () => {
    expect(trackingComment(runningMission(), { links })).toMatchSnapshot();
  });

  it("ends with the verdict once reviewed", () => {
    const comment = trackingComment(reviewedMission());
    expect(comment.trimEnd().split("\n").at(-1)).toBe("**Verdict:** ✋ **request_changes**: Changes requested: 2 items not integrated.");
  });

  it("starts with the hidden marker of the mission", () => {
    expect(trackingComment(runningMission()).startsWith("<!-- naruto:tracking:m-test1 -->\n")).toBe(true);
    expect(trackingMarker("m-x --><b>")).toBe("<!-- naruto:tracking:m-x--b -->");
  });

  it("drops links that are not http(s)", () => {
    const comment = trackingComment(runningMission(), { links: { run: "javascript:alert(1)", pullRequest: "file:///etc/passwd" } });
    expect(comment).not.toMatch(/javascript|file:/);
  });

  it("neutralizes hostile titles, tasks and reasons", () => {
    const comment = trackingComment(hostileMission());
    expect(comment).not.toMatch(/<img|<script|@everyone|(?<!\\)\]\(http:|http:\/\//);
    const items = comment.split("\n").filter((l) => l.startsWith("- ["));
    expect(items).toHaveLength(2);
  });

  it("stays under GitHub's comment limit with 1,000 items and says how many it left out", () => {
    const comment = trackingComment(hugeMission(1000), { links });
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    const shown = comment.split("\n").filter((l) => l.startsWith("- [")).length;
    const hidden = Number(/^- … and (\d+) more items — see the report$/m.exec(comment)?.[1]);
    expect(hidden).toBeGreaterThan(0);
    expect(shown + hidden).toBe(1000);
    expect(comment).toContain("**Verdict:**");
  });
});
