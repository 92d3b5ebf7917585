import { describe, expect, it } from "vitest";
import { missionReport } from "./markdown.ts";
import { hostileMission, hugeMission, reviewedMission, runningMission } from "./missions.fixture.ts";
import { COMMENT_LIMIT } from "./fit.ts";
import { missionOf, SCENARIOS } from "./render-scenarios.fixture.ts";

/** Cells of a markdown table row: split on pipes that are not escaped. */
const cells = (row: string) => row.split(/(?<!\\)\|/).slice(1, -1);

describe("missionReport", () => {
  it("renders a finished mission: request, verdict, items, proof, queue, cost, graph", () => {
    expect(missionReport(reviewedMission())).toMatchSnapshot();
  });

  it("renders a mission under way, not reviewed yet, without costs", () => {
    const report = missionReport(runningMission());
    expect(report).toContain("⏳ **Not reviewed yet**");
    expect(report).toContain("| 🔄 | `orders-api` Validate orders handler input | running |");
  });

  it("neutralizes a hostile request, titles and reasons", () => {
    const report = missionReport(hostileMission());
    // Labels in the Mermaid block keep the title's text, escaped for Mermaid (mermaid.test.ts).
    expect(report.replace(/^```mermaid\n[\s\S]*?^```$/m, "")).not.toMatch(/<img|<script|@everyone|@org|#12|(?<!\\)\]\(|https?:\/\//);
    expect(report).toContain("&lt;img src=x&gt; @&#8203;everyone please");
    const rows = report.split("\n").filter((l) => l.startsWith("| ❌") || l.startsWith("| ⏭️"));
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(cells(row)).toHaveLength(8);
    // The fence in the request cannot open a code block that would swallow the report.
    expect(report.split("\n").filter((l) => l.startsWith("```"))).toEqual(["```mermaid", "```"]);
  });

  it("sums up the pairs of a path many items write, one row per path", () => {
    const shared = SCENARIOS.find((s) => s.name === "64 items sharing one path")!;
    const report = missionReport(missionOf(shared));
    expect(report).toContain("✅ No two items that may run at the same time write the same path. 2016 conflicting pairs, each run one after the other:");
    expect(report).toContain("| `src/shared.ts` | 64 | 2016 | an edge the planner added (2016) |");
    expect(report).not.toMatch(/^\| `s-0` \| `s-1` \|/m);
  });

  it("says when the proof is not a proof document", () => {
    expect(missionReport({ ...reviewedMission(), proof: { schema: "other" } })).toContain("is not a `naruto.proof/v1` document");
    expect(missionReport({ ...reviewedMission(), proof: null })).toContain("No proof: the mission has no plan yet.");
  });

  it("names a mission stopped early", () => {
    expect(missionReport({ ...reviewedMission(), reason: "cost cap reached: $2.00 spent of $1.00" })).toContain(
      "**Stopped:** cost cap reached: $2.00 spent of $1.00",
    );
  });

  it("stays under GitHub's comment limit with 1,000 items, saying how many rows it left out", () => {
    const report = missionReport(hugeMission(1000));
    expect(report.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    const shown = report.split("\n").filter((l) => l.startsWith("| ⏳") || l.startsWith("| ✅") || l.startsWith("| 🔄")).length;
    const hidden = Number(/… and (\d+) more items — see the JSON result/.exec(report)?.[1]);
    expect(shown + hidden).toBe(1000);
    expect(report).toContain("## Graph");
  });

  it("keeps every row when the limit allows", () => {
    const report = missionReport(hugeMission(1000), { limit: Number.POSITIVE_INFINITY });
    expect(report).not.toContain("more items");
  });
});
