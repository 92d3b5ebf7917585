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

  it("puts the verdict and the links before the long parts, the graph last", () => {
    const lines = trackingComment(reviewedMission(), { links }).trimEnd().split("\n");
    const verdict = lines.indexOf("**Verdict:** ✋ **request_changes**: Changes requested: 2 items not integrated.");
    const queue = lines.findIndex((l) => l.startsWith("Queue `naruto/m-test1`") && l.includes("[pull request](https://github.com/acme/demo/pull/2)"));
    const checklist = lines.findIndex((l) => l.startsWith("- ["));
    expect(verdict).toBeGreaterThan(0);
    expect(queue).toBeGreaterThan(verdict);
    expect(checklist).toBeGreaterThan(queue);
    expect(lines.indexOf("```mermaid")).toBeGreaterThan(checklist);
    expect(lines.at(-1)).toBe("```");
  });

  it("names each artifact refused as a forgery, at most five, before the checklist", () => {
    const finding = (n: number) => ({
      at: "2026-12-01T00:00:00Z",
      what: `artifact naruto-work-slow-${n} of run 41`,
      before: null,
      after: "sha256:ab",
      blame: "forged_artifact" as const,
      attempts: [],
      action: "slow#1's leg is still at work; nothing of it was used",
    });
    const mission = { ...runningMission(), tampering: [1, 2, 3, 4, 5, 6].map(finding) };
    const lines = trackingComment(mission).split("\n");
    const refused = lines.filter((l) => l.startsWith("**Refused:**"));
    expect(refused).toHaveLength(5);
    expect(refused[0]).toBe("**Refused:** `artifact naruto-work-slow-1 of run 41` — slow#&#8203;1's leg is still at work; nothing of it was used");
    expect(lines).toContain("_… and 1 more refused artifacts — see the report._");
    expect(lines.findIndex((l) => l.startsWith("**Refused:**"))).toBeLessThan(lines.findIndex((l) => l.startsWith("- [")));
    expect(trackingComment(runningMission())).not.toContain("**Refused:**");
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
    // Labels in the Mermaid block keep the title's text, escaped for Mermaid (mermaid.test.ts):
    // a code block links no mention and renders no markdown.
    const comment = trackingComment(hostileMission()).replace(/^```mermaid\n[\s\S]*?^```$/m, "");
    expect(comment).not.toMatch(/<img|<script|@everyone|(?<!\\)\]\(http:|http:\/\//);
    const items = comment.split("\n").filter((l) => l.startsWith("- ["));
    expect(items).toHaveLength(2);
  });

  it("stays under GitHub's comment limit with 1,000 items and says how many it left out", () => {
    const comment = trackingComment(hugeMission(1000), { links });
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    const shown = comment.split("\n").filter((l) => l.startsWith("- [")).length;
    const hidden = Number(/^_… and (\d+) more items — see the report\._$/m.exec(comment)?.[1]);
    expect(hidden).toBeGreaterThan(0);
    expect(shown + hidden).toBe(1000);
    expect(comment).toContain("**Verdict:**");
  });
});
